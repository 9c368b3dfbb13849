-- An order by its session id: under the file's write lock inside a write step, or alone (get).
SELECT fencekit_order_columns
  FROM fencekit_orders
 WHERE session_id = ?
