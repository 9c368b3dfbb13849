-- fencekit schema version 4 for PostgreSQL: the orders table's CHECK constraints are dropped, on top
-- of V3__fencekit_mismatches.sql. PostgresOrderStore runs it at start when built with
-- createSchema(true). Otherwise run it from your own migrations, with your orders table's name (and
-- schema) in place of fencekit_orders. It can run again after a partial run. The store runs it in
-- one transaction.
--
-- Why: PostgreSQL parses and plans each CHECK expression again for every statement that writes the
-- table, which cost a claim's INSERT and a complete's UPDATE more executor time than the rest of
-- each (17.5 µs a statement with the eight checks, 7.5 without, pgbench on PostgreSQL 15). The
-- rules they held (status, quantity, amount, fence and failures in range, the item set exactly when
-- PROVISIONED, the claim's nonce, start and lease end set together, the settled token whole) are
-- checked in the store on every record before it is written (OrderRecord, OrderSnapshot, ClaimId),
-- and the TCK holds each. NOT NULL and the keys stay.
DO $$ DECLARE c record; BEGIN
  FOR c IN SELECT conname FROM pg_constraint
            WHERE conrelid = 'fencekit_orders'::regclass AND contype = 'c'
  LOOP EXECUTE format('ALTER TABLE fencekit_orders DROP CONSTRAINT %I', c.conname); END LOOP; END
$$;

INSERT INTO fencekit_orders_version (version, script)
VALUES (4, 'V4__fencekit_checks_in_the_store.sql')
    ON CONFLICT (version) DO NOTHING;
