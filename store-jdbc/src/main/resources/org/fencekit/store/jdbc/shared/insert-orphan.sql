-- Records an item bought by a superseded attempt, inside the write step that found the claim
-- superseded. A retried complete with the same claim and provider order id inserts nothing: the
-- first row is kept.
INSERT INTO fencekit_orphans (fencekit_orphan_columns)
VALUES (fencekit_orphan_values)
    ON CONFLICT (session_id, claim_fence, claim_nonce, provider_order_id) DO NOTHING
