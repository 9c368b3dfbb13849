-- The orphans of an order, oldest first.
SELECT fencekit_orphan_columns
  FROM fencekit_orphans
 WHERE session_id = ?
 ORDER BY seq
