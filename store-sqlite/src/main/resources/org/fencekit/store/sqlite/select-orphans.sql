SELECT claim_fence, claim_nonce, provider_order_id, item_payload, recorded_at
  FROM "${orphans}"
 WHERE session_id = ?
 ORDER BY seq
