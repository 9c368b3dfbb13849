-- Creates an order on its first claim. Inserts nothing (0 rows) if the order exists, or if
-- another transaction created it first (the insert waits for that one to end). The store then
-- decides again in a new, locking transaction, whether this ran in one or alone in auto-commit
-- (the fast path's first claim).
INSERT INTO fencekit_orders (
       session_id, product_id, quantity, customer_email, amount_total, currency, status,
       provider_order_id, item_payload, last_error, fence, claim_nonce, claimed_at,
       lease_expires_at, settled_fence, settled_nonce, updated_at)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
    ON CONFLICT (session_id) DO NOTHING
