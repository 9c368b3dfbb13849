-- DO NOTHING if the order exists: the caller is told and decides again. claim_fence, last,
-- repeats the claim's fence for readers of earlier versions.
INSERT INTO fencekit_orders (fencekit_order_columns, claim_fence)
VALUES (fencekit_order_values, ?)
ON CONFLICT (session_id) DO NOTHING
