-- DO NOTHING if the order exists: the caller is told and decides again. claim_fence repeats the
-- fence (?11) while there is a claim (?12 is its nonce), for readers of earlier versions.
INSERT INTO fencekit_orders (fencekit_order_columns, claim_fence)
VALUES (fencekit_order_values, CASE WHEN ?12 IS NULL THEN NULL ELSE ?11 END)
ON CONFLICT (session_id) DO NOTHING
