-- Serialises the stores that start at once on one database: each reads the schema version and
-- runs the missing scripts only after the one before it finished. MySQL has no transaction-scoped
-- lock for this, so it is a named lock of the session, released by release-migrations.sql when the
-- check ends; its name is a digest of the database and the orders table (names are limited to 64
-- characters), so stores of other tables do not wait. Parameters: 1 the orders table, 2 how many
-- seconds to wait. Answers 1 when held, 0 after the wait.
SELECT GET_LOCK(CONCAT('fencekit_', SHA1(CONCAT(DATABASE(), '.', ?))), ?)
