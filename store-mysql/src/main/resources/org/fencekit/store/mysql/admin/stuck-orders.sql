-- Orders holding a claim whose lease ran out by a cutoff, oldest lease first: a range scan of the
-- index fencekit_orders_claims (lease_expires_at, session_id), from the cursor up to the cutoff
-- (lease_expires_at is NULL unless a claim is held, so the range holds claims only). MySQL does not
-- start a range at a row-value comparison, so the cursor's key is spelt out; the one-row derived
-- table holds the parameters, in the order of the shared statement, as constants the range
-- starts from. Parameters: 1 the cutoff (now - age), 2 and 3 the previous page's last
-- (lease_expires_at, session_id), or values below every row's, 4 how many.
SELECT fencekit_order_columns
  FROM (SELECT ? AS cutoff, ? AS after_at, ? AS after_id) AS p
  JOIN fencekit_orders
 WHERE claim_nonce IS NOT NULL
   AND lease_expires_at <= p.cutoff
   AND (lease_expires_at > p.after_at
        OR (lease_expires_at = p.after_at AND session_id > p.after_id))
 ORDER BY lease_expires_at, session_id
 LIMIT ?
