-- The floor's complete, one auto-commit statement (PostgreSQL and MySQL): writes the item and
-- settles the order with the token where the token (fence and nonce) is the order's current claim.
-- One row: written; none: a replay of the settling token, or superseded (the orphan statement
-- tells which). The settled token is bound, not read from the row: MySQL assigns left to right.
-- Parameters: 1 provider_order_id, 2 item_payload, 3 settled_fence, 4 settled_nonce, 5 now,
-- 6 session_id, 7 fence, 8 nonce.
UPDATE floor_orders
   SET status = 'PROVISIONED', provider_order_id = ?, item_payload = ?, settled_fence = ?,
       settled_nonce = ?, claim_nonce = NULL, lease_expires_at = NULL, updated_at = ?
 WHERE session_id = ? AND fence = ? AND claim_nonce = ?
