package org.fencekit.store.sqlite;

import java.util.ArrayList;
import java.util.List;
import org.fencekit.store.jdbc.JdbcOrder;
import org.fencekit.store.jdbc.SqlTemplates;

/**
 * The store's SQL, read once from the resources next to this class ({@link SqlTemplates}) and bound
 * to the configured table names, double-quoted. Only names that passed {@link
 * org.fencekit.store.Validate#identifier} are ever placed in the text; every value travels as a
 * bound parameter.
 *
 * @param schema the statements that create the tables if they are missing
 * @param selectOrder reads one order by session id
 * @param insertOrder creates an order unless it exists
 * @param updateOrder replaces an order's state (never its snapshot)
 * @param insertOrphan records an orphan unless the same purchase is recorded already
 * @param selectOrphans reads an order's orphans in the order they were recorded
 */
record Statements(
    List<String> schema,
    String selectOrder,
    String insertOrder,
    String updateOrder,
    String insertOrphan,
    String selectOrphans) {

  /**
   * The statements for the given tables.
   *
   * @param orders the orders table, already validated as a plain identifier
   * @param orphans the orphans table, already validated as a plain identifier
   */
  static Statements forTables(String orders, String orphans) {
    SqlTemplates sql =
        SqlTemplates.forTables(Statements.class, '"' + orders + '"', '"' + orphans + '"', null);
    return new Statements(
        splitScript(sql.statement("schema.sql")),
        sql.statement("select-order.sql"),
        sql.statement("insert-order.sql"),
        sql.statement("update-order.sql"),
        sql.statement("insert-orphan.sql"),
        sql.statement("select-orphans.sql"));
  }

  /** The statements that must compile against existing tables: every one but the schema. */
  List<String> queries() {
    return List.of(selectOrder, insertOrder, updateOrder, insertOrphan, selectOrphans);
  }

  /** What an order step runs; inside a write step the file's write lock is held already. */
  JdbcOrder.Statements forSteps() {
    return new JdbcOrder.Statements(selectOrder, insertOrder, updateOrder, insertOrphan);
  }

  /** Splits a script at semicolons that end a line (the resources keep them out of comments). */
  private static List<String> splitScript(String script) {
    List<String> statements = new ArrayList<>();
    for (String part : script.split(";[ \\t]*(\\r?\\n|$)")) {
      boolean code =
          part.lines().anyMatch(line -> !line.isBlank() && !line.strip().startsWith("--"));
      if (code) {
        statements.add(part.strip());
      }
    }
    return List.copyOf(statements);
  }
}
