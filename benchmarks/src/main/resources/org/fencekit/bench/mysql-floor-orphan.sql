-- pg-floor-orphan.sql on MySQL: a retried superseded complete meets the primary key (1062), which
-- the floor reads as "kept before". Parameters: as pg-floor-orphan.sql's.
INSERT INTO floor_orphans (session_id, claim_fence, claim_nonce, provider_order_id, item_payload,
                           recorded_at)
SELECT ?, ?, ?, ?, ?, ? FROM DUAL
 WHERE NOT EXISTS (SELECT 1 FROM floor_orders
                    WHERE session_id = ? AND settled_fence = ? AND settled_nonce = ?)
