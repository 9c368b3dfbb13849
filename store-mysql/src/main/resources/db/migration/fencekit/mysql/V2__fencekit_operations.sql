-- fencekit schema version 2 for MySQL / MariaDB: what the operator's queries (OrderStoreAdmin)
-- need, on top of V1__fencekit_tables.sql. MysqlOrderStore runs it at start when built with
-- createSchema(true); otherwise run it from your own migrations, with your table names in place of
-- fencekit_orders and fencekit_orphans (the version table and the indexes are named after them).
-- MySQL commits each DDL statement on its own, so every statement is written to be run again
-- after a partial run: a column or index is added only where it is missing (the store checks
-- information_schema for it first; from your migrations, run the script once).

-- How many fails landed on an order, and when the first did. Orders that failed before this
-- upgrade (a last_error is kept) count as failed once, since their last write: the closest V1
-- knows.
ALTER TABLE fencekit_orders ADD COLUMN failures INT NOT NULL DEFAULT 0 CHECK (failures >= 0);
ALTER TABLE fencekit_orders ADD COLUMN failed_since BIGINT;
UPDATE fencekit_orders SET failures = 1, failed_since = updated_at
 WHERE last_error IS NOT NULL AND failures = 0;

-- An orphan's reconciliation: both set once, together, never changed after.
ALTER TABLE fencekit_orphans ADD COLUMN reconciled_note TEXT CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
ALTER TABLE fencekit_orphans ADD COLUMN reconciled_at BIGINT;

-- When an unreconciled orphan was recorded, NULL once it is reconciled: what MySQL has instead of
-- a partial index is an index over a column that is NULL outside the listing (a range skips NULLs).
-- (An index led by reconciled_at would be read from its first NULL and filtered, not sought.)
ALTER TABLE fencekit_orphans ADD COLUMN unreconciled_at BIGINT
  GENERATED ALWAYS AS (IF(reconciled_at IS NULL, recorded_at, NULL)) STORED;

-- One index per listing, in the listing's order, each range holding only the listing's rows:
-- unreconciled_at and lease_expires_at are NULL outside theirs, status leads the failed one.
CREATE INDEX fencekit_orphans_unreconciled
    ON fencekit_orphans (unreconciled_at, session_id, claim_fence, claim_nonce, provider_order_id);
CREATE INDEX fencekit_orders_claims ON fencekit_orders (lease_expires_at, session_id);
CREATE INDEX fencekit_orders_failed ON fencekit_orders (status, failed_since, session_id);

-- The schema version the store checks at start: one row per script run.
CREATE TABLE IF NOT EXISTS fencekit_orders_version (
  version INT          NOT NULL PRIMARY KEY,
  script  VARCHAR(255) NOT NULL
) ENGINE = InnoDB;
INSERT IGNORE INTO fencekit_orders_version (version, script)
VALUES (1, 'V1__fencekit_tables.sql'), (2, 'V2__fencekit_operations.sql');
