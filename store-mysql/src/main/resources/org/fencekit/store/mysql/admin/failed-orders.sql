-- FAILED orders with at least a count of failures or failing since a cutoff, longest failing
-- first: a range scan of the index fencekit_orders_failed (status, failed_since, session_id) within
-- status = 'FAILED', from the cursor on. Every row up to the cutoff matches, so the scan reads the
-- page, plus past the cutoff only the FAILED orders with fewer failures that lie between. The
-- cursor's key is spelt out as in stuck-orders.sql. Parameters: 1 the count, 2 the cutoff
-- (now - age), 3 and 4 the previous page's last (failed_since, session_id), or values below every
-- row's, 5 how many.
SELECT fencekit_order_columns
  FROM (SELECT ? AS min_failures, ? AS cutoff, ? AS after_at, ? AS after_id) AS p
  JOIN fencekit_orders
 WHERE status = 'FAILED'
   AND (failures >= p.min_failures OR failed_since <= p.cutoff)
   AND (failed_since > p.after_at
        OR (failed_since = p.after_at AND session_id > p.after_id))
 ORDER BY failed_since, session_id
 LIMIT ?
