-- Creates an order on its first claim. Inserts nothing (0 rows) if another transaction created
-- it first. The store then decides again in a new transaction, against that order.
INSERT INTO fencekit_orders (
       session_id, product_id, quantity, customer_email, amount_total, currency, status,
       provider_order_id, item_payload, last_error, fence, claim_nonce, claimed_at,
       lease_expires_at, settled_fence, settled_nonce, updated_at)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
    ON CONFLICT (session_id) DO NOTHING
