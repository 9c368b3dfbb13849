-- Orders holding a claim whose lease ran out by a cutoff, oldest lease first: a range scan of the
-- partial index fencekit_orders_claims (held claims by lease end), which stops at the cutoff.
-- Parameters: 1 the cutoff (now - age), 2 and 3 the previous page's last (lease_expires_at,
-- session_id), or values below every row's, 4 how many.
SELECT fencekit_order_columns
  FROM fencekit_orders
 WHERE claim_nonce IS NOT NULL
   AND lease_expires_at <= ?
   AND (lease_expires_at, session_id) > (?, ?)
 ORDER BY lease_expires_at, session_id
 LIMIT ?
