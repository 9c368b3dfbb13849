-- lock-order.sql with the server's clock: the order read under its row lock, and
-- clock_timestamp() in epoch milliseconds read after the lock is held, in one statement (no extra
-- round trip). The first statement of every claim, complete, fail and extend of a store built with
-- serverTime(true). Always one row: the order's columns are all NULL when there is no order, so a
-- first claim gets the time too.
WITH locked AS (
  SELECT fencekit_order_columns
    FROM fencekit_orders
   WHERE session_id = ?
     FOR UPDATE
)
SELECT locked.*, floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint AS server_now_ms
  FROM (SELECT 1) AS one
  LEFT JOIN locked ON true
