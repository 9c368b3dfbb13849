-- Replaces the state of an order, under the row lock taken by lock-order.sql in the same
-- transaction (PostgreSQL, MySQL). The snapshot columns are never changed: the first snapshot is
-- kept.
UPDATE fencekit_orders
   SET fencekit_state_assignments
 WHERE session_id = ?
