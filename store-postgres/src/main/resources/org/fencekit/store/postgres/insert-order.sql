-- Creates an order on its first claim. Inserts nothing (0 rows) if the order exists, or if
-- another transaction created it first (the insert waits for that one to end). The store then
-- decides again in a new, locking transaction, whether this ran in one or alone in auto-commit
-- (the fast path's first claim).
INSERT INTO fencekit_orders (fencekit_order_columns)
VALUES (fencekit_order_values)
    ON CONFLICT (session_id) DO NOTHING
