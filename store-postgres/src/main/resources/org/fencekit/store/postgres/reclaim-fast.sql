-- The single-statement re-claim, in auto-commit (the fast path of PostgresOrderStore): a claim of
-- an order that exists, written only where the state machine grants it: the offered snapshot is
-- the same order as the stored one (product_id, quantity and amount_total equal, currency equal
-- ignoring case: OrderField), the order is not PROVISIONED and it holds no claim whose lease is
-- live at now (no claim, or one whose lease ended at or before now). It writes what the machine
-- writes: status PENDING, no item, a new claim (the nonce, claimed_at = now, lease_expires_at =
-- now + lease) under fence + 1, updated_at = now; the snapshot, last_error, settled_*, failures and
-- failed_since are kept. It returns the row it wrote, written = true; where it wrote nothing
-- (another order under the key, provisioned, in flight), the order as the statement's snapshot
-- read it, without its row lock, written = false, from which the store answers or decides in the
-- locking transaction (which records a mismatch); no row for an unknown order. One round trip
-- either way: a caller refused on an order many fight over costs one statement, as a lock's does.
-- Parameters: 1 claim_nonce, 2 claimed_at (now), 3 lease_expires_at, 4 updated_at (now),
-- 5 session_id, 6 now, 7 to 10 the offered product_id, quantity, amount_total, currency,
-- 11 session_id.
WITH claimed AS (
UPDATE fencekit_orders AS o
   SET status = 'PENDING', provider_order_id = NULL, item_payload = NULL, fence = o.fence + 1,
       claim_nonce = ?, claimed_at = ?, lease_expires_at = ?, updated_at = ?
 WHERE o.session_id = ? AND o.status <> 'PROVISIONED'
   AND (o.claim_nonce IS NULL OR o.lease_expires_at <= ?)
   AND o.product_id = ? AND o.quantity = ? AND o.amount_total = ? AND lower(o.currency) = lower(?)
RETURNING fencekit_order_columns
)
SELECT c.*, true AS written FROM claimed AS c
 UNION ALL
SELECT fencekit_order_columns, false FROM fencekit_orders
 WHERE session_id = ? AND NOT EXISTS (SELECT FROM claimed)
