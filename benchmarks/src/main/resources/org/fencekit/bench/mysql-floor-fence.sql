-- The fence of the claim holding nonce (after mysql-floor-reclaim.sql).
-- Parameters: 1 session_id, 2 claim_nonce.
SELECT fence FROM floor_orders WHERE session_id = ? AND claim_nonce = ?
