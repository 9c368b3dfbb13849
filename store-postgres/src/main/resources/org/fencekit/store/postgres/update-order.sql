-- Replaces the state of an order, under the row lock taken by lock-order.sql in the same
-- transaction. The snapshot columns are never changed: the first snapshot is kept.
UPDATE fencekit_orders
   SET status = ?, provider_order_id = ?, item_payload = ?, last_error = ?, fence = ?,
       claim_nonce = ?, claimed_at = ?, lease_expires_at = ?, settled_fence = ?,
       settled_nonce = ?, updated_at = ?
 WHERE session_id = ?
