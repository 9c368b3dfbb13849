-- The snapshot columns are never updated: the first snapshot is kept. claim_fence repeats the
-- fence (?5) while there is a claim (?6 is its nonce), for readers of earlier versions; the last
-- parameter, session_id, is ?12.
UPDATE fencekit_orders
   SET fencekit_state_assignments, claim_fence = CASE WHEN ?6 IS NULL THEN NULL ELSE ?5 END
 WHERE session_id = ?
