-- DO NOTHING on a retried complete: the first record of a purchase is kept.
INSERT INTO fencekit_orphans (fencekit_orphan_columns)
VALUES (fencekit_orphan_values)
ON CONFLICT (session_id, claim_fence, claim_nonce, provider_order_id) DO NOTHING
