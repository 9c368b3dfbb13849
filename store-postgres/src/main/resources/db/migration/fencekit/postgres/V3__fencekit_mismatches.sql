-- fencekit schema version 3 for PostgreSQL: the claims that offered another order under a stored
-- order's session id (OrderStoreAdmin.mismatches), on top of V2__fencekit_operations.sql.
-- PostgresOrderStore runs it at start when built with createSchema(true); otherwise run it from
-- your own migrations, with your orders table's name in place of fencekit_orders (the mismatches
-- table is named after it). Every statement is idempotent; the store runs the script in one
-- transaction.
--
-- Orders stored before this upgrade need nothing: a claim compares the snapshot's own columns
-- (product_id, quantity, amount_total, currency), which every version stores; no fingerprint.

-- One row per mismatched claim, never changed: its primary key is the listing's order.
CREATE TABLE IF NOT EXISTS fencekit_orders_mismatches (
  recorded_at          bigint  NOT NULL,
  session_id           text    NOT NULL,
  nonce                text    NOT NULL,
  stored_product_id    text    NOT NULL,
  stored_quantity      integer NOT NULL,
  stored_amount_total  bigint  NOT NULL,
  stored_currency      text    NOT NULL,
  offered_product_id   text    NOT NULL,
  offered_quantity     integer NOT NULL,
  offered_amount_total bigint  NOT NULL,
  offered_currency     text    NOT NULL,
  PRIMARY KEY (recorded_at, session_id, nonce)
);

INSERT INTO fencekit_orders_version (version, script)
VALUES (3, 'V3__fencekit_mismatches.sql')
    ON CONFLICT (version) DO NOTHING;
