-- Releases lock-migrations.sql's lock. Parameter: 1 the orders table.
SELECT RELEASE_LOCK(CONCAT('fencekit_', SHA1(CONCAT(DATABASE(), '.', ?))))
