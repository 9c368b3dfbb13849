-- The mismatched claims after a position, oldest first: a range scan of the mismatches table's
-- primary key (recorded_at, session_id, nonce), which is exactly this order, so a page reads its
-- own rows and one more. Parameters: 1 to 3 the sort key of the previous page's last mismatch (on
-- the first page values below every row's), 4 how many.
SELECT fencekit_mismatch_columns
  FROM fencekit_orders_mismatches
 WHERE (recorded_at, session_id, nonce) > (?, ?, ?)
 ORDER BY recorded_at, session_id, nonce
 LIMIT ?
