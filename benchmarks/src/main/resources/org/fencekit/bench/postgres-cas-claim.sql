-- The raw baseline's single-statement claim: create the order, or take it over if it is not
-- provisioned and holds no live claim, in one INSERT ... ON CONFLICT DO UPDATE ... WHERE.
-- Returns the new fence, or no row when the claim is refused (provisioned, or in flight).
INSERT INTO fencekit_orders (
       session_id, product_id, quantity, customer_email, amount_total, currency, status,
       fence, claim_nonce, claimed_at, lease_expires_at, updated_at)
VALUES (?, ?, ?, ?, ?, ?, 'PENDING', 1, ?, ?, ?, ?)
    ON CONFLICT (session_id) DO UPDATE
   SET status = 'PENDING', fence = fencekit_orders.fence + 1, claim_nonce = EXCLUDED.claim_nonce,
       claimed_at = EXCLUDED.claimed_at, lease_expires_at = EXCLUDED.lease_expires_at,
       updated_at = EXCLUDED.updated_at
 WHERE fencekit_orders.status <> 'PROVISIONED'
   AND (fencekit_orders.claim_nonce IS NULL OR fencekit_orders.lease_expires_at <= EXCLUDED.claimed_at)
RETURNING fence
