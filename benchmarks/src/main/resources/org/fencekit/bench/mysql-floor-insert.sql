-- The floor's first claim on MySQL, one auto-commit statement: creates the order (its snapshot,
-- PENDING, fence 1, the claim). An order that exists meets the primary key (1062): the floor then
-- claims it again with mysql-floor-reclaim.sql.
-- Parameters: 1 session_id, 2 product_id, 3 quantity, 4 customer_email, 5 amount_total,
-- 6 currency, 7 claim_nonce, 8 lease_expires_at, 9 now.
INSERT INTO floor_orders (session_id, product_id, quantity, customer_email, amount_total, currency,
                          status, fence, claim_nonce, lease_expires_at, updated_at)
VALUES (?, ?, ?, ?, ?, ?, 'PENDING', 1, ?, ?, ?)
