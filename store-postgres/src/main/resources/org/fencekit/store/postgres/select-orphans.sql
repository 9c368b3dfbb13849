-- The orphans of an order, oldest first.
SELECT session_id, claim_fence, claim_nonce, provider_order_id, item_payload, recorded_at
  FROM fencekit_orphans
 WHERE session_id = ?
 ORDER BY seq
