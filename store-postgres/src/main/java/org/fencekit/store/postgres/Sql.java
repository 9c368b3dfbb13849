package org.fencekit.store.postgres;

import java.util.Locale;
import org.fencekit.store.jdbc.JdbcAdminStorage;
import org.fencekit.store.jdbc.JdbcLockedOrder;
import org.fencekit.store.jdbc.Migrations;
import org.fencekit.store.jdbc.SqlTemplates;

/**
 * The store's SQL, read once from the resources next to this class ({@link SqlTemplates}) and bound
 * to the configured names, which {@code Validate.identifier} has checked, lower-cased and
 * double-quoted (the same table PostgreSQL folds an unquoted name to, and safe for a name that is a
 * keyword). Every value travels as a bound parameter.
 */
record Sql(
    String createNamespace,
    SqlTemplates templates,
    Migrations.Probe probe,
    String lockMigrations,
    String selectOrder,
    String lockOrder,
    String lockOrderServerTime,
    String insertOrder,
    String updateOrder,
    String insertOrphan,
    String insertMismatch,
    String selectOrphans,
    String reclaimFast,
    String completeFast,
    String completeAlone,
    String failFast,
    String extendFast,
    JdbcAdminStorage.AdminStatements admin) {

  /**
   * The statements for these names, each already validated as a plain identifier.
   *
   * @param schema the schema (namespace) holding both tables, or {@code null} for the search path
   */
  static Sql forTables(String schema, String ordersTable, String orphansTable) {
    String prefix = schema == null ? "" : quote(schema) + ".";
    SqlTemplates sql =
        SqlTemplates.forTables(
                Sql.class,
                prefix + quote(ordersTable),
                prefix + quote(orphansTable),
                schema == null ? null : quote(schema))
            .with(
                Migrations.derivedNames(
                    ordersTable, orphansTable, name -> prefix + quote(name), Sql::quote));
    String versionTable = prefix + quote(ordersTable + "_version");
    return new Sql(
        schema == null ? null : sql.statement("create-namespace.sql"),
        sql,
        new Migrations.Probe(
            "SELECT CASE WHEN to_regclass(?) IS NULL THEN 0 ELSE 1 END",
            prefix + quote(ordersTable),
            versionTable,
            "SELECT max(version) FROM " + versionTable),
        sql.statement("lock-migrations.sql"),
        sql.statement(SqlTemplates.SHARED + "select-order.sql"),
        sql.statement(SqlTemplates.SHARED + "lock-order.sql"),
        sql.statement("lock-order-server-time.sql"),
        sql.statement("insert-order.sql"),
        sql.statement(SqlTemplates.SHARED + "update-order.sql"),
        sql.statement(SqlTemplates.SHARED + "insert-orphan.sql"),
        sql.statement(SqlTemplates.SHARED + "insert-mismatch.sql"),
        sql.statement(SqlTemplates.SHARED + "select-orphans.sql"),
        sql.statement("reclaim-fast.sql"),
        sql.statement("complete-fast.sql"),
        withoutReturning(sql.statement("complete-fast.sql")),
        sql.statement("fail-fast.sql"),
        sql.statement("extend-fast.sql"),
        JdbcAdminStorage.AdminStatements.from(sql));
  }

  /** The text of a migration script exactly as shipped, for users who run their own migrations. */
  static String shippedScript(Migrations.Script script) {
    return SqlTemplates.raw(Sql.class, script.resource("postgres"));
  }

  /**
   * What a locking step runs: its first read locks the order's row, and with {@code serverTime}
   * also reads the server's clock.
   */
  JdbcLockedOrder.Statements forSteps(boolean serverTime) {
    return new JdbcLockedOrder.Statements(
            lockOrder, insertOrder, updateOrder, insertOrphan, insertMismatch)
        .withServerTime(serverTime, lockOrderServerTime);
  }

  /**
   * {@code statement} up to its final {@code RETURNING} clause: complete-fast.sql with nothing sent
   * back, for the complete of a claim the store granted ({@link FastPath#write}).
   */
  private static String withoutReturning(String statement) {
    int returning = statement.lastIndexOf("RETURNING ");
    if (returning < 0) {
      throw new IllegalStateException("no RETURNING clause in " + statement);
    }
    return statement.substring(0, returning).strip();
  }

  private static String quote(String identifier) {
    return '"' + identifier.toLowerCase(Locale.ROOT) + '"';
  }
}
