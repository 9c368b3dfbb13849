package org.fencekit.store.sqlite;

import java.util.List;
import java.util.stream.Stream;
import org.fencekit.store.jdbc.JdbcAdminStorage;
import org.fencekit.store.jdbc.JdbcLockedOrder;
import org.fencekit.store.jdbc.Migrations;
import org.fencekit.store.jdbc.SqlTemplates;

/**
 * The store's SQL, read once from the resources next to this class ({@link SqlTemplates}) and bound
 * to the configured table names, double-quoted. Only names that passed {@link
 * org.fencekit.store.spi.Validate#identifier} are ever placed in the text; every value travels as a
 * bound parameter.
 *
 * @param templates the templates with the configured names, for the migration scripts
 * @param probe how to read the schema version the file holds
 * @param selectOrder reads one order by session id
 * @param insertOrder creates an order unless it exists
 * @param updateOrder replaces an order's state (never its snapshot)
 * @param insertOrphan records an orphan unless the same purchase is recorded already
 * @param insertMismatch records a mismatched claim
 * @param selectOrphans reads an order's orphans in the order they were recorded
 * @param admin the operator's queries
 */
record Statements(
    SqlTemplates templates,
    Migrations.Probe probe,
    String selectOrder,
    String insertOrder,
    String updateOrder,
    String insertOrphan,
    String insertMismatch,
    String selectOrphans,
    JdbcAdminStorage.AdminStatements admin) {

  /**
   * The statements for the given tables.
   *
   * @param orders the orders table, already validated as a plain identifier
   * @param orphans the orphans table, already validated as a plain identifier
   */
  static Statements forTables(String orders, String orphans) {
    SqlTemplates sql =
        SqlTemplates.forTables(Statements.class, quote(orders), quote(orphans), null)
            .with(Migrations.derivedNames(orders, orphans, Statements::quote, Statements::quote));
    return new Statements(
        sql,
        new Migrations.Probe(
            "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?",
            orders,
            orders + "_version",
            "SELECT max(version) FROM " + quote(orders + "_version")),
        sql.statement(SqlTemplates.SHARED + "select-order.sql"),
        sql.statement("insert-order.sql"),
        sql.statement("update-order.sql"),
        sql.statement(SqlTemplates.SHARED + "insert-orphan.sql"),
        sql.statement(SqlTemplates.SHARED + "insert-mismatch.sql"),
        sql.statement(SqlTemplates.SHARED + "select-orphans.sql"),
        JdbcAdminStorage.AdminStatements.from(sql));
  }

  private static String quote(String identifier) {
    return '"' + identifier + '"';
  }

  /** The statements that must compile against the tables: every one but the migrations. */
  List<String> queries() {
    return Stream.concat(
            Stream.of(
                selectOrder, insertOrder, updateOrder, insertOrphan, insertMismatch, selectOrphans),
            admin.all().stream())
        .toList();
  }

  /** What an order step runs; inside a write step the file's write lock is held already. */
  JdbcLockedOrder.Statements forSteps() {
    return new JdbcLockedOrder.Statements(
        selectOrder, insertOrder, updateOrder, insertOrphan, insertMismatch);
  }
}
