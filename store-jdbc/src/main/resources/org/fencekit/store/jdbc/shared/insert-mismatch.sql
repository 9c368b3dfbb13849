-- Records a claim that offered another order under a stored order's session id, inside the claim's
-- step (after the locking read that found the stored order), so the row lands with the claim's
-- answer or not at all. Every mismatched claim has its own nonce: one row per claim.
INSERT INTO fencekit_orders_mismatches (fencekit_mismatch_columns)
VALUES (fencekit_mismatch_values)
