-- One orphan by its identity, through the unique key (session_id, claim_fence, claim_nonce,
-- provider_order_id).
SELECT fencekit_orphan_record_columns
  FROM fencekit_orphans
 WHERE session_id = ? AND claim_fence = ? AND claim_nonce = ? AND provider_order_id = ?
