-- FAILED orders with at least a count of failures or failing since a cutoff, longest failing
-- first: a scan of the partial index fencekit_orders_failed (FAILED orders by first failure). Every
-- row up to the cutoff matches, so the scan reads the page, plus past the cutoff only the FAILED
-- orders with fewer failures that lie between. Parameters: 1 the count, 2 the cutoff (now - age),
-- 3 and 4 the previous page's last (failed_since, session_id), or values below every row's, 5 how
-- many.
SELECT fencekit_order_columns
  FROM fencekit_orders
 WHERE status = 'FAILED'
   AND (failures >= ? OR failed_since <= ?)
   AND (failed_since, session_id) > (?, ?)
 ORDER BY failed_since, session_id
 LIMIT ?
