-- fencekit schema version 4 for SQLite: nothing changes here, on top of V3__fencekit_mismatches.sql.
-- Version 4 drops PostgreSQL's CHECK constraints, which PostgreSQL plans again for every write. The
-- versions are one sequence for every SQL store, so this script records the version.
-- SqliteOrderStore runs it at start when it finds an older version (unless built with
-- createSchema(false)). Run it from your own migrations otherwise, with your orders table's name in
-- place of fencekit_orders (the version table is named after it). Statements end with a semicolon
-- at the end of a line, and no comment contains one.

INSERT OR IGNORE INTO fencekit_orders_version (version, script)
VALUES (4, 'V4__fencekit_checks_in_the_store.sql');
