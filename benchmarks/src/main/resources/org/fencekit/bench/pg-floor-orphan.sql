-- After a complete that wrote nothing: keeps the item as an orphan unless the token is the one
-- that settled the order (a replay). A superseded token never becomes current again, so nothing
-- can change the answer between the two statements. One row: kept now; none: a replay, or kept
-- before (floor-settled.sql tells which).
-- Parameters: 1 session_id, 2 fence, 3 nonce, 4 provider_order_id, 5 item_payload, 6 now,
-- 7 session_id, 8 fence, 9 nonce.
INSERT INTO floor_orphans (session_id, claim_fence, claim_nonce, provider_order_id, item_payload,
                           recorded_at)
SELECT ?, ?, ?, ?, ?, ?
 WHERE NOT EXISTS (SELECT 1 FROM floor_orders
                    WHERE session_id = ? AND settled_fence = ? AND settled_nonce = ?)
    ON CONFLICT DO NOTHING
