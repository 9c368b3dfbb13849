-- The single-statement re-claim, in auto-commit (the fast path of PostgresOrderStore, sent when
-- its first-claim INSERT found the order already there). It writes only where the state machine
-- grants a claim on an existing order: not PROVISIONED, and no live lease at now (no claim, or
-- lease_expires_at <= now). It writes what the machine writes: status PENDING, no item,
-- fence + 1, the new claim (nonce, claimed_at = now, lease_expires_at = now + lease) and
-- updated_at = now; snapshot, last_error and settled_* are kept. No row comes back when the
-- machine would answer Provisioned or InFlight: the store then decides in the locking
-- transaction.
-- Parameters: 1 claim_nonce, 2 claimed_at, 3 lease_expires_at, 4 updated_at, 5 session_id,
-- 6 now.
UPDATE fencekit_orders AS o
   SET status = 'PENDING', provider_order_id = NULL, item_payload = NULL, fence = o.fence + 1,
       claim_nonce = ?, claimed_at = ?, lease_expires_at = ?, updated_at = ?
 WHERE o.session_id = ?
   AND o.status <> 'PROVISIONED'
   AND (o.claim_nonce IS NULL OR o.lease_expires_at <= ?)
RETURNING session_id, product_id, quantity, customer_email, amount_total, currency, status,
          provider_order_id, item_payload, last_error, fence, claim_nonce, claimed_at,
          lease_expires_at, settled_fence, settled_nonce, updated_at
