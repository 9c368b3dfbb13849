-- The single-statement claim, in auto-commit (the fast path of PostgresOrderStore). It writes
-- only where the state machine grants the claim without needing anything but the row itself:
--   taken:   the order exists, is not PROVISIONED and holds no live lease at now (no claim, or
--            lease_expires_at <= now): the machine's re-claim. fence + 1, the new claim, status
--            PENDING, no item; snapshot, last_error and settled_* are kept.
--   created: there is no order (ON CONFLICT DO NOTHING, and only if taken wrote nothing): the
--            machine's first claim, every column bound from the record it built.
-- No row comes back when the machine would answer Provisioned or InFlight, or when a concurrent
-- first claim created the order after this statement's snapshot: the store then decides in the
-- locking transaction. Neither branch locks a row it does not write.
-- Parameters: 1-4 the new claim (nonce, claimed_at, lease_expires_at, updated_at), 5 session_id,
-- 6 now, 7-23 the created record in the column order of insert-order.sql.
WITH taken AS (
  UPDATE fencekit_orders AS o
     SET status = 'PENDING', provider_order_id = NULL, item_payload = NULL, fence = o.fence + 1,
         claim_nonce = ?, claimed_at = ?, lease_expires_at = ?, updated_at = ?
   WHERE o.session_id = ?
     AND o.status <> 'PROVISIONED'
     AND (o.claim_nonce IS NULL OR o.lease_expires_at <= ?)
  RETURNING o.*
), created AS (
  INSERT INTO fencekit_orders (
         session_id, product_id, quantity, customer_email, amount_total, currency, status,
         provider_order_id, item_payload, last_error, fence, claim_nonce, claimed_at,
         lease_expires_at, settled_fence, settled_nonce, updated_at)
  SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?
   WHERE NOT EXISTS (SELECT 1 FROM taken)
      ON CONFLICT (session_id) DO NOTHING
  RETURNING *
)
SELECT session_id, product_id, quantity, customer_email, amount_total, currency, status,
       provider_order_id, item_payload, last_error, fence, claim_nonce, claimed_at,
       lease_expires_at, settled_fence, settled_nonce, updated_at
  FROM taken
 UNION ALL
SELECT session_id, product_id, quantity, customer_email, amount_total, currency, status,
       provider_order_id, item_payload, last_error, fence, claim_nonce, claimed_at,
       lease_expires_at, settled_fence, settled_nonce, updated_at
  FROM created
