package org.fencekit.store.mysql;

import org.fencekit.store.jdbc.JdbcAdminStorage;
import org.fencekit.store.jdbc.JdbcLockedOrder;
import org.fencekit.store.jdbc.Migrations;
import org.fencekit.store.jdbc.SqlTemplates;

/**
 * The store's SQL, read once ({@link SqlTemplates}) and bound to the configured names, which {@code
 * Validate.identifier} has checked and which go into SQL in backquotes, as given (MySQL on Linux
 * keeps a table name's case). Every value travels as a bound parameter. Beside the statements all
 * SQL stores or the row-locking ones share, MySQL has its own inserts (no {@code ON CONFLICT}), the
 * fast path's complete, its admin listings (a range starts at the cursor only when its key is spelt
 * out), its migration lock and its locking read with the server's clock.
 */
record Sql(
    SqlTemplates templates,
    Migrations.Probe probe,
    String lockMigrations,
    String releaseMigrations,
    String selectOrder,
    String insertOrder,
    String completeFast,
    String selectOrphans,
    JdbcLockedOrder.Statements steps,
    String lockOrderServerTime,
    String readCommitted,
    JdbcAdminStorage.AdminStatements admin) {

  /** The statements for these names, each already validated as a plain identifier. */
  static Sql forTables(String ordersTable, String orphansTable) {
    SqlTemplates sql =
        SqlTemplates.forTables(Sql.class, quote(ordersTable), quote(orphansTable), null)
            .with(Migrations.derivedNames(ordersTable, orphansTable, Sql::quote, Sql::quote));
    String versionTable = quote(ordersTable + "_version");
    String insertOrder = sql.statement("insert-order.sql");
    String admin = "/org/fencekit/store/jdbc/admin/";
    return new Sql(
        sql,
        new Migrations.Probe(
            "SELECT COUNT(*) FROM information_schema.tables"
                + " WHERE table_schema = DATABASE() AND table_name = REPLACE(?, '`', '')",
            quote(ordersTable),
            versionTable,
            "SELECT MAX(version) FROM " + versionTable),
        sql.statement("lock-migrations.sql"),
        sql.statement("release-migrations.sql"),
        sql.statement(SqlTemplates.SHARED + "select-order.sql"),
        insertOrder,
        sql.statement("complete-fast.sql"),
        sql.statement(SqlTemplates.SHARED + "select-orphans.sql"),
        new JdbcLockedOrder.Statements(
            sql.statement(SqlTemplates.SHARED + "lock-order.sql"),
            insertOrder,
            sql.statement(SqlTemplates.SHARED + "update-order.sql"),
            sql.statement("insert-orphan.sql"),
            sql.statement(SqlTemplates.SHARED + "insert-mismatch.sql")),
        sql.statement("lock-order-server-time.sql"),
        sql.statement("read-committed.sql"),
        new JdbcAdminStorage.AdminStatements(
            sql.statement("admin/unreconciled-orphans.sql"),
            sql.statement(admin + "orphan.sql"),
            sql.statement(admin + "mark-reconciled.sql"),
            sql.statement("admin/stuck-orders.sql"),
            sql.statement("admin/failed-orders.sql"),
            sql.statement("admin/mismatches.sql")));
  }

  /**
   * What a locking step runs: its first read locks the order's row, and with {@code serverTime}
   * also reads the server's clock (lock-order-server-time.sql).
   */
  JdbcLockedOrder.Statements steps(boolean serverTime) {
    return steps.withServerTime(serverTime, lockOrderServerTime);
  }

  /** The text of a migration script exactly as shipped, for users who run their own migrations. */
  static String shippedScript(Migrations.Script script) {
    return SqlTemplates.raw(Sql.class, script.resource("mysql"));
  }

  private static String quote(String identifier) {
    return '`' + identifier + '`';
  }
}
