-- fencekit schema version 2 for PostgreSQL: what the operator's queries (OrderStoreAdmin) need, on
-- top of V1__fencekit_tables.sql. PostgresOrderStore runs it at start when built with
-- createSchema(true); otherwise run it from your own migrations, with your table names (and
-- schema) in place of fencekit_orders and fencekit_orphans (the version table and the indexes are
-- named after them). Every statement is idempotent; the store runs the script in one transaction.

-- How many fails landed on an order, and when the first did. Orders that failed before this
-- upgrade (a last_error is kept) count as failed once, since their last write: the closest V1
-- knows.
ALTER TABLE fencekit_orders ADD COLUMN IF NOT EXISTS failures integer NOT NULL DEFAULT 0
  CHECK (failures >= 0);
ALTER TABLE fencekit_orders ADD COLUMN IF NOT EXISTS failed_since bigint;
UPDATE fencekit_orders SET failures = 1, failed_since = updated_at
 WHERE last_error IS NOT NULL AND failures = 0;

-- An orphan's reconciliation: both set once, together, never changed after.
ALTER TABLE fencekit_orphans ADD COLUMN IF NOT EXISTS reconciled_note text;
ALTER TABLE fencekit_orphans ADD COLUMN IF NOT EXISTS reconciled_at bigint;

-- One partial index per listing, in the listing's order, holding only the rows it lists.
CREATE INDEX IF NOT EXISTS fencekit_orphans_unreconciled
    ON fencekit_orphans (recorded_at, session_id, claim_fence, claim_nonce, provider_order_id)
 WHERE reconciled_at IS NULL;
CREATE INDEX IF NOT EXISTS fencekit_orders_claims
    ON fencekit_orders (lease_expires_at, session_id)
 WHERE claim_nonce IS NOT NULL;
CREATE INDEX IF NOT EXISTS fencekit_orders_failed
    ON fencekit_orders (failed_since, session_id)
 WHERE status = 'FAILED';

-- The schema version the store checks at start: one row per script run.
CREATE TABLE IF NOT EXISTS fencekit_orders_version (
  version integer NOT NULL PRIMARY KEY,
  script  text    NOT NULL
);
INSERT INTO fencekit_orders_version (version, script)
VALUES (1, 'V1__fencekit_tables.sql'), (2, 'V2__fencekit_operations.sql')
    ON CONFLICT (version) DO NOTHING;
