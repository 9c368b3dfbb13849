-- fencekit schema version 3 for MySQL / MariaDB: the claims that offered another order under a
-- stored order's session id (OrderStoreAdmin.mismatches), on top of V2__fencekit_operations.sql.
-- MysqlOrderStore runs it at start when built with createSchema(true); otherwise run it from your
-- own migrations, with your orders table's name in place of fencekit_orders (the mismatches table
-- is named after it). Every statement can run again after a partial run.
--
-- Orders stored before this upgrade need nothing: a claim compares the snapshot's own columns
-- (product_id, quantity, amount_total, currency), which every version stores, no fingerprint.

-- One row per mismatched claim, never changed: its primary key is the listing's order (ids as
-- bytes, like the other tables, so the order is the bytes' order).
CREATE TABLE IF NOT EXISTS fencekit_orders_mismatches (
  recorded_at          BIGINT          NOT NULL,
  session_id           VARBINARY(1020) NOT NULL,
  nonce                VARBINARY(32)   NOT NULL,
  stored_product_id    VARCHAR(255)    CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
  stored_quantity      INT             NOT NULL,
  stored_amount_total  BIGINT          NOT NULL,
  stored_currency      VARCHAR(3)      CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
  offered_product_id   VARCHAR(255)    CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
  offered_quantity     INT             NOT NULL,
  offered_amount_total BIGINT          NOT NULL,
  offered_currency     VARCHAR(3)      CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
  PRIMARY KEY (recorded_at, session_id, nonce)
) ENGINE = InnoDB;

INSERT IGNORE INTO fencekit_orders_version (version, script)
VALUES (3, 'V3__fencekit_mismatches.sql');
