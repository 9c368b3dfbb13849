-- fencekit schema version 3 for SQLite: the claims that offered another order under a stored
-- order's session id (OrderStoreAdmin.mismatches), on top of V2__fencekit_operations.sql.
-- SqliteOrderStore runs it at start when it finds an older version (unless built with
-- createSchema(false)); run it from your own migrations otherwise, with your orders table's name in
-- place of fencekit_orders (the mismatches table is named after it). Statements end with a
-- semicolon at the end of a line, and no comment contains one.
--
-- Orders stored before this upgrade need nothing: a claim compares the snapshot's own columns
-- (product_id, quantity, amount_total, currency), which every version stores, no fingerprint.

-- One row per mismatched claim, never changed: its primary key is the listing's order.
CREATE TABLE IF NOT EXISTS fencekit_orders_mismatches (
  recorded_at          INTEGER NOT NULL,
  session_id           TEXT    NOT NULL,
  nonce                TEXT    NOT NULL,
  stored_product_id    TEXT    NOT NULL,
  stored_quantity      INTEGER NOT NULL,
  stored_amount_total  INTEGER NOT NULL,
  stored_currency      TEXT    NOT NULL,
  offered_product_id   TEXT    NOT NULL,
  offered_quantity     INTEGER NOT NULL,
  offered_amount_total INTEGER NOT NULL,
  offered_currency     TEXT    NOT NULL,
  PRIMARY KEY (recorded_at, session_id, nonce)
) STRICT;

INSERT OR IGNORE INTO fencekit_orders_version (version, script)
VALUES (3, 'V3__fencekit_mismatches.sql');
