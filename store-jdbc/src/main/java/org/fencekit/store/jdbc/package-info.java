/**
 * Internal: the JDBC code the SQLite and PostgreSQL stores share, written once. {@link OrderRows}
 * holds the one column list and maps an order or an orphan to a row and back; {@link SqlTemplates}
 * loads a store's statements and fills in its table names and the column list; {@link
 * JdbcLockedOrder} is an order inside a store's atomic step; {@link JdbcAdminStorage} runs the
 * single-statement reads and the admin queries; {@link JdbcStoreBuilder} holds the settings both
 * builders share. Not an API: it changes with the stores.
 */
package org.fencekit.store.jdbc;
