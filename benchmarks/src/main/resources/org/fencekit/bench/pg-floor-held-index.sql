-- The indexed floor's one index (SqlFloor.postgresIndexed), on top of pg-floor-tables.sql: the
-- held claims by lease end, which an exact stuck-order listing walks and nothing else. Only rows
-- that hold a claim are in it; the complete clears the claim and so takes the row out.
CREATE INDEX IF NOT EXISTS floor_orders_held ON floor_orders (lease_expires_at)
 WHERE claim_nonce IS NOT NULL;
