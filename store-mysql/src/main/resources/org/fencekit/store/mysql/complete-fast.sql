-- The single-statement complete, in auto-commit (the fast path of MysqlOrderStore). It writes
-- only where the state machine's answer is a complete that lands: the token presented (fence and
-- nonce) is the order's current claim, and it is not the token that settled the order last (a
-- replay, which the machine answers without writing). It writes what the machine writes: status
-- PROVISIONED, the item, no claim, settled_* = the token, updated_at = now; snapshot, last_error
-- and fence are kept. It matches no row for anything else (superseded, replay, unknown order): the
-- store then decides in the locking transaction, which also records a superseded item. MySQL has
-- no RETURNING: the store reads the row after, which is exact because a PROVISIONED order never
-- changes again.
-- Parameters: 1 provider_order_id, 2 item_payload, 3 settled_fence, 4 settled_nonce,
-- 5 updated_at, 6 session_id, 7 the token's fence, 8 the token's nonce.
UPDATE fencekit_orders
   SET status = 'PROVISIONED', provider_order_id = ?, item_payload = ?, claim_nonce = NULL,
       claimed_at = NULL, lease_expires_at = NULL, settled_fence = ?, settled_nonce = ?,
       updated_at = ?
 WHERE session_id = ? AND fence = ? AND claim_nonce = ?
   AND NOT (settled_fence <=> fence AND settled_nonce <=> claim_nonce)
