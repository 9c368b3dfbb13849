SELECT fencekit_order_columns FROM fencekit_orders WHERE session_id = ?
