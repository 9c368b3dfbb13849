-- fencekit schema version 2 for SQLite: what the operator's queries (OrderStoreAdmin) need, on top
-- of V1__fencekit_tables.sql. SqliteOrderStore runs it at start when it finds version 1 (unless
-- built with createSchema(false)); run it from your own migrations otherwise, with your table
-- names in place of fencekit_orders and fencekit_orphans (the version table and the indexes are
-- named after them). Statements end with a semicolon at the end of a line, and no comment
-- contains one.

-- How many fails landed on an order, and when the first did. Orders that failed before this
-- upgrade (a last_error is kept) count as failed once, since their last write: the closest V1
-- knows.
ALTER TABLE fencekit_orders ADD COLUMN failures INTEGER NOT NULL DEFAULT 0 CHECK (failures >= 0);
ALTER TABLE fencekit_orders ADD COLUMN failed_since INTEGER;
UPDATE fencekit_orders SET failures = 1, failed_since = updated_at WHERE last_error IS NOT NULL;

-- An orphan's reconciliation: both set once, together, never changed after.
ALTER TABLE fencekit_orphans ADD COLUMN reconciled_note TEXT;
ALTER TABLE fencekit_orphans ADD COLUMN reconciled_at INTEGER;

-- One partial index per listing, in the listing's order, holding only the rows it lists.
CREATE INDEX fencekit_orphans_unreconciled
    ON fencekit_orphans (recorded_at, session_id, claim_fence, claim_nonce, provider_order_id)
 WHERE reconciled_at IS NULL;
CREATE INDEX fencekit_orders_claims
    ON fencekit_orders (lease_expires_at, session_id)
 WHERE claim_nonce IS NOT NULL;
CREATE INDEX fencekit_orders_failed
    ON fencekit_orders (failed_since, session_id)
 WHERE status = 'FAILED';

-- The schema version the store checks at start: one row per script run.
CREATE TABLE fencekit_orders_version (
  version INTEGER NOT NULL PRIMARY KEY,
  script  TEXT    NOT NULL
) STRICT;
INSERT INTO fencekit_orders_version (version, script)
VALUES (1, 'V1__fencekit_tables.sql'), (2, 'V2__fencekit_operations.sql');
