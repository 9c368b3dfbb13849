-- lock-order.sql with the server's clock, for a store built with serverTime(true): the order read
-- under its row lock, and the server's time in epoch milliseconds read after the lock is held, in
-- one statement (no extra round trip). Always one row: the order's columns are all NULL when there
-- is no order, so a first claim gets the time too. Parameter: 1 the session id.
--
-- The time is UTC_TIMESTAMP(6) (the statement's start, in UTC whatever the session's time_zone)
-- plus how long the statement has run when SYSDATE(6) is read (after the lock wait). SYSDATE and
-- NOW are both in the session's time zone, so their difference is elapsed time unless the zone's
-- offset changed in between (a daylight saving change during a lock wait: 30 minutes or more):
-- a difference outside [0, 10 min) is not used, and the statement's start is (earlier than the
-- truth, which can only keep a lease alive longer, never end it early). A server started with
-- --sysdate-is-now gives the statement's start likewise. Microseconds are cut to milliseconds.
SELECT fencekit_order_columns,
       (TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', one.utc_start)
        + CASE WHEN TIMESTAMPDIFF(MICROSECOND, one.local_start, SYSDATE(6)) BETWEEN 0 AND 599999999
               THEN TIMESTAMPDIFF(MICROSECOND, one.local_start, SYSDATE(6))
               ELSE 0 END) DIV 1000 AS server_now_ms
  FROM (SELECT UTC_TIMESTAMP(6) AS utc_start, NOW(6) AS local_start) AS one
  LEFT JOIN fencekit_orders ON session_id = ?
   FOR UPDATE
