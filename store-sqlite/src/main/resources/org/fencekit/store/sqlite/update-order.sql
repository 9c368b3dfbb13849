-- The snapshot columns are never updated: the first snapshot is kept. claim_fence repeats the
-- claim's fence for readers of earlier versions.
UPDATE fencekit_orders
   SET fencekit_state_assignments, claim_fence = ?
 WHERE session_id = ?
