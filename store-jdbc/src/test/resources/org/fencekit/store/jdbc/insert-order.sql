INSERT INTO fencekit_orders (fencekit_order_columns) VALUES (fencekit_order_values) ON CONFLICT (session_id) DO NOTHING
