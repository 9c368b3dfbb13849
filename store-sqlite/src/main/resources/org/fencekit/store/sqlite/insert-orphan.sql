-- DO NOTHING on a retried complete: the first record of a purchase is kept.
INSERT INTO "${orphans}" (
  session_id, claim_fence, claim_nonce, provider_order_id, item_payload, recorded_at)
VALUES (?, ?, ?, ?, ?, ?)
ON CONFLICT (session_id, claim_fence, claim_nonce, provider_order_id) DO NOTHING
