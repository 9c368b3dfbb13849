-- Records an item bought by a superseded attempt, under the row lock of the order. A retried
-- complete with the same claim and provider order id inserts nothing: the first row is kept.
INSERT INTO fencekit_orphans (
       session_id, claim_fence, claim_nonce, provider_order_id, item_payload, recorded_at)
VALUES (?, ?, ?, ?, ?, ?)
    ON CONFLICT (session_id, claim_fence, claim_nonce, provider_order_id) DO NOTHING
