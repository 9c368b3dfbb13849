-- An order by its session id: as last committed (get), or inside a write step under the store's
-- lock (SQLite's file write lock; PostgreSQL reads it so only where no lock is needed).
SELECT fencekit_order_columns
  FROM fencekit_orders
 WHERE session_id = ?
