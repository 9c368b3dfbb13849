-- Records a reconciliation unless one is recorded: one statement, so of concurrent marks exactly
-- one writes, and the others (and any later mark) change nothing. Nothing else of the row is
-- touched. Parameters: 1 the note, 2 reconciled_at, 3 to 6 the orphan's identity.
UPDATE fencekit_orphans
   SET reconciled_note = ?, reconciled_at = ?
 WHERE session_id = ? AND claim_fence = ? AND claim_nonce = ? AND provider_order_id = ?
   AND reconciled_at IS NULL
