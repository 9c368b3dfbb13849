-- Creates an order on its first claim: a plain INSERT. If the order exists, or another
-- transaction created it first (the insert waits for that one to end), the server refuses it with
-- a duplicate key (1062) and undoes this statement only; the store reads that as "created by
-- another caller" and decides again in a new locking transaction. (INSERT IGNORE would also turn
-- other errors into warnings, and ON DUPLICATE KEY UPDATE reports a found row as changed.)
INSERT INTO fencekit_orders (fencekit_order_columns)
VALUES (fencekit_order_values)
