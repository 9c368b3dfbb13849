-- The snapshot columns are never updated: the first snapshot is kept.
UPDATE "${orders}"
   SET status = ?, provider_order_id = ?, item_payload = ?, last_error = ?, fence = ?,
       claim_fence = ?, claim_nonce = ?, claimed_at = ?, lease_expires_at = ?,
       settled_fence = ?, settled_nonce = ?, updated_at = ?
 WHERE session_id = ?
