-- Whether the token settled the order: a complete that wrote nothing and kept no orphan is a
-- replay if so. Parameters: 1 session_id, 2 fence, 3 nonce.
SELECT 1 FROM floor_orders WHERE session_id = ? AND settled_fence = ? AND settled_nonce = ?
