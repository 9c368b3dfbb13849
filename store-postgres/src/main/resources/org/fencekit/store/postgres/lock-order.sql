-- An order read under its row lock, held until the transaction ends: the first statement of
-- every claim, complete, fail and extend. Under READ COMMITTED a waiter gets the row as the
-- holder committed it.
SELECT fencekit_order_columns
  FROM fencekit_orders
 WHERE session_id = ?
   FOR UPDATE
