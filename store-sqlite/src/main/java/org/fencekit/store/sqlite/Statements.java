package org.fencekit.store.sqlite;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The store's SQL, read once from the resources next to this class and bound to the configured
 * table names. Only names that passed {@link org.fencekit.store.Validate#identifier} are ever
 * placed in the text; every value travels as a bound parameter.
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

  private static final Map<String, String> TEMPLATES =
      Map.of(
          "schema", load("schema.sql"),
          "selectOrder", load("select-order.sql"),
          "insertOrder", load("insert-order.sql"),
          "updateOrder", load("update-order.sql"),
          "insertOrphan", load("insert-orphan.sql"),
          "selectOrphans", load("select-orphans.sql"));

  /**
   * The statements for the given tables.
   *
   * @param orders the orders table, already validated as a plain identifier
   * @param orphans the orphans table, already validated as a plain identifier
   */
  static Statements forTables(String orders, String orphans) {
    return new Statements(
        splitScript(bind(TEMPLATES.get("schema"), orders, orphans)),
        bind(TEMPLATES.get("selectOrder"), orders, orphans),
        bind(TEMPLATES.get("insertOrder"), orders, orphans),
        bind(TEMPLATES.get("updateOrder"), orders, orphans),
        bind(TEMPLATES.get("insertOrphan"), orders, orphans),
        bind(TEMPLATES.get("selectOrphans"), orders, orphans));
  }

  /** The statements that must compile against existing tables: every one but the schema. */
  List<String> queries() {
    return List.of(selectOrder, insertOrder, updateOrder, insertOrphan, selectOrphans);
  }

  private static String bind(String template, String orders, String orphans) {
    String sql = template.replace("${orders}", orders).replace("${orphans}", orphans);
    if (sql.contains("${")) {
      throw new IllegalStateException("unknown placeholder left in store-sqlite SQL: " + sql);
    }
    return sql;
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

  private static String load(String name) {
    try (InputStream in = Statements.class.getResourceAsStream(name)) {
      if (in == null) {
        throw new IllegalStateException(
            "store-sqlite resource "
                + name
                + " is missing from the classpath; the jar is incomplete");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("could not read store-sqlite resource " + name, e);
    }
  }
}
