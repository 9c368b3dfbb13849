-- The raw baseline's single-statement complete: a compare-and-set on the token (fence and
-- nonce). One row updated: written; none: superseded (the orphan is not recorded here).
UPDATE fencekit_orders
   SET status = 'PROVISIONED', provider_order_id = ?, item_payload = ?, claim_nonce = NULL,
       claimed_at = NULL, lease_expires_at = NULL, settled_fence = fence,
       settled_nonce = claim_nonce, updated_at = ?
 WHERE session_id = ? AND fence = ? AND claim_nonce = ?
