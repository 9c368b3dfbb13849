-- select-order.sql with a made-up server time, as a store's serverTime read returns it: always one
-- row, the order's columns NULL when there is no order.
SELECT fencekit_order_columns, 1789000000123 AS server_now_ms
  FROM (SELECT 1) AS one
  LEFT JOIN fencekit_orders ON session_id = ?
