-- A header that documents the statement.
-- Parameters: 1 session_id.
SELECT fencekit_order_columns
  FROM fencekit_orders
    -- an indented comment line
 WHERE session_id = ? AND note = 'a -- b'
-- a comment at the end