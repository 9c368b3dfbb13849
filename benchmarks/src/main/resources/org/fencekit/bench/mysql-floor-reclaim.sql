-- The floor's claim of an order that exists, on MySQL: fence + 1 and the new claim where the order
-- is not provisioned and holds no live lease. One row: claimed (the floor reads the fence back by
-- its nonce); none: refused. Parameters: 1 claim_nonce, 2 lease_expires_at, 3 now, 4 session_id,
-- 5 now.
UPDATE floor_orders
   SET status = 'PENDING', provider_order_id = NULL, item_payload = NULL, fence = fence + 1,
       claim_nonce = ?, lease_expires_at = ?, updated_at = ?
 WHERE session_id = ? AND status <> 'PROVISIONED'
   AND (claim_nonce IS NULL OR lease_expires_at <= ?)
