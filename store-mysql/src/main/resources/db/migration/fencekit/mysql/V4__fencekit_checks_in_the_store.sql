-- fencekit schema version 4 for MySQL / MariaDB: nothing changes here, on top of
-- V3__fencekit_mismatches.sql. Version 4 drops PostgreSQL's CHECK constraints, which PostgreSQL
-- plans again for every write. The versions are one sequence for every SQL store, so this script
-- records the version. MysqlOrderStore runs it at start when built with createSchema(true).
-- Otherwise run it from your own migrations, with your orders table's name in place of
-- fencekit_orders (the version table is named after it).

INSERT IGNORE INTO fencekit_orders_version (version, script)
VALUES (4, 'V4__fencekit_checks_in_the_store.sql');
