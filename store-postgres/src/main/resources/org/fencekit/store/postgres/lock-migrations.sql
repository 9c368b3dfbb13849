-- Serialises the stores that start at once on one database, for the rest of their transaction:
-- each reads the schema version and runs the missing scripts only after the one before it
-- committed. The parameter names the orders table, so stores of other tables do not wait.
SELECT pg_advisory_xact_lock(hashtext(?))
