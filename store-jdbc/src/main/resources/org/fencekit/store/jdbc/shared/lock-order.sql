-- An order read under its row lock, held until the transaction ends: the first statement of
-- every claim, complete, fail and extend (PostgreSQL, MySQL). A locking read returns the row as
-- last committed, after waiting for a transaction holding it, also under READ COMMITTED.
SELECT fencekit_order_columns
  FROM fencekit_orders
 WHERE session_id = ?
   FOR UPDATE
