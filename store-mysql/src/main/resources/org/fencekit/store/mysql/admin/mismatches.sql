-- The mismatched claims after a position, oldest first: a range scan of the mismatches table's
-- primary key (recorded_at, session_id, nonce) from the cursor on, so a page reads its own rows and
-- one more. The cursor's key is spelt out as in unreconciled-orphans.sql, and bounded below by its
-- first column too (so the range starts at the cursor). Parameters: 1 to 3 the sort key of the
-- previous page's last mismatch (on the first page values below every row's), 4 how many.
SELECT fencekit_mismatch_columns
  FROM (SELECT ? AS after_at, ? AS after_id, ? AS after_nonce) AS p
  JOIN fencekit_orders_mismatches
 WHERE recorded_at >= p.after_at
   AND (recorded_at > p.after_at
        OR (recorded_at = p.after_at
            AND (session_id > p.after_id
                 OR (session_id = p.after_id AND nonce > p.after_nonce))))
 ORDER BY recorded_at, session_id, nonce
 LIMIT ?
