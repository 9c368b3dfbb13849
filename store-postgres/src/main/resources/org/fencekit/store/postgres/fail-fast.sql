-- The single-statement fail, in auto-commit (the fast path of PostgresOrderStore). It writes
-- only where the state machine's answer is a fail that lands: the token presented (fence and
-- nonce) is the order's current claim, and it is not the token that settled the order last (a
-- replay, which the machine answers without writing). It writes what the machine writes: status
-- FAILED, no item, the error, no claim, settled_* = the token, updated_at = now, one more failure
-- (failed_since = now if it is the first); snapshot and fence are kept. No row comes back for anything else (superseded, replay, unknown order): the
-- store then decides in the locking transaction.
-- Parameters: 1 last_error, 2 settled_fence, 3 settled_nonce, 4 updated_at, 5 failed_since if it
-- is the first failure (now), 6 session_id, 7 the token's fence, 8 the token's nonce.
UPDATE fencekit_orders AS o
   SET status = 'FAILED', provider_order_id = NULL, item_payload = NULL, last_error = ?,
       claim_nonce = NULL, claimed_at = NULL, lease_expires_at = NULL, settled_fence = ?,
       settled_nonce = ?, updated_at = ?, failures = o.failures + 1,
       failed_since = COALESCE(o.failed_since, ?)
 WHERE o.session_id = ? AND o.fence = ? AND o.claim_nonce = ?
   AND (o.settled_fence, o.settled_nonce) IS DISTINCT FROM (o.fence, o.claim_nonce)
RETURNING fencekit_order_columns
