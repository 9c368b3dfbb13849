-- Creates the configured schema (namespace) before schema.sql runs, when the store is built
-- with a schema and createSchema(true). The store replaces fencekit_schema with the name.
CREATE SCHEMA IF NOT EXISTS fencekit_schema
