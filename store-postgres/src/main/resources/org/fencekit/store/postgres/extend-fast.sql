-- The single-statement extend, in auto-commit (the fast path of PostgresOrderStore). It writes
-- only where the state machine's answer is an extend that lands: the token presented (fence and
-- nonce) is the order's current claim (an extend is never a replay). It writes what the machine
-- writes: lease_expires_at = now + lease, updated_at = now; everything else is kept. No row
-- comes back for anything else (superseded, unknown order): the store then decides in the
-- locking transaction.
-- Parameters: 1 lease_expires_at, 2 updated_at, 3 session_id, 4 the token's fence,
-- 5 the token's nonce.
UPDATE fencekit_orders AS o
   SET lease_expires_at = ?, updated_at = ?
 WHERE o.session_id = ? AND o.fence = ? AND o.claim_nonce = ?
RETURNING fencekit_order_columns
