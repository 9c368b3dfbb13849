/**
 * Internal: the JDBC code the SQLite, PostgreSQL and MySQL stores share, written once. {@link
 * OrderRows} holds the one column list and maps an order or an orphan to a row and back; {@link
 * SqlTemplates} loads a store's statements and fills in its table names and the column list; {@link
 * JdbcLockedOrder} is an order inside a store's atomic step; {@link JdbcAdminStorage} runs the
 * single-statement reads and the admin queries; {@link JdbcStoreBuilder} holds the settings all
 * three builders share, and {@link PooledStoreBuilder} those of the two on a database server (a
 * DataSource or a HikariCP pool, the query timeout). {@link JdbcStorage} is the storage of the
 * stores whose server locks rows (PostgreSQL, MySQL): their locking transactions, retries and
 * failures, with what the dialect says differently left to it; {@link FastSettle} checks their
 * single-statement settles against the state machine. {@link Migrations} is the versioned DDL of
 * all three. Not an API: it changes with the stores.
 */
package org.fencekit.store.jdbc;
