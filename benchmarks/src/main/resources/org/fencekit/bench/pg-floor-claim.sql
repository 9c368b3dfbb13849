-- The floor's claim, one auto-commit statement: creates the order (its snapshot, PENDING, fence 1,
-- the claim) or, if it exists, claims it again under fence + 1 where it is not provisioned and
-- holds no live lease. Returns the fence granted; no row: refused (provisioned, or in flight).
-- Parameters: 1 session_id, 2 product_id, 3 quantity, 4 customer_email, 5 amount_total,
-- 6 currency, 7 claim_nonce, 8 lease_expires_at, 9 now.
INSERT INTO floor_orders AS o (session_id, product_id, quantity, customer_email, amount_total,
                               currency, status, fence, claim_nonce, lease_expires_at, updated_at)
VALUES (?, ?, ?, ?, ?, ?, 'PENDING', 1, ?, ?, ?)
    ON CONFLICT (session_id) DO UPDATE
   SET status = 'PENDING', provider_order_id = NULL, item_payload = NULL, fence = o.fence + 1,
       claim_nonce = EXCLUDED.claim_nonce, lease_expires_at = EXCLUDED.lease_expires_at,
       updated_at = EXCLUDED.updated_at
 WHERE o.status <> 'PROVISIONED'
   AND (o.claim_nonce IS NULL OR o.lease_expires_at <= EXCLUDED.updated_at)
RETURNING o.fence
