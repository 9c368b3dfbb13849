package org.fencekit.store.jdbc;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A store's statements, read from resources next to its classes, with one placeholder scheme: a
 * word {@code fencekit_<name>} stands for a name the store fills in. {@code fencekit_orders} and
 * {@code fencekit_orphans} are the tables (so a schema file runs as it stands, on the default
 * names), {@code fencekit_schema} a namespace, and the column list is written once, in {@link
 * OrderRows}: {@code fencekit_order_columns}, {@code fencekit_order_values} ({@code ?} per column),
 * {@code fencekit_state_assignments} ({@code column = ?} per state column), {@code
 * fencekit_orphan_columns}, {@code fencekit_orphan_values}, {@code fencekit_orphan_record_columns}
 * (an orphan with its reconciliation), {@code fencekit_mismatch_columns} and {@code
 * fencekit_mismatch_values}. A resource whose name starts with {@code /} is read from that absolute
 * path (the migration scripts, the admin queries). Only names a store validated as plain
 * identifiers and quoted are ever put in the text; every value travels as a bound parameter.
 */
public final class SqlTemplates {

  /**
   * Where the statements every SQL dialect words alike live (select-order.sql, select-orphans.sql,
   * insert-orphan.sql): give {@link #statement} this path and the file's name.
   */
  public static final String SHARED = "/org/fencekit/store/jdbc/shared/";

  private static final Pattern COMMENT_LINE = Pattern.compile("(?m)^[ \\t]*--.*(\\r?\\n|\\z)");

  private static final Pattern PLACEHOLDER = Pattern.compile("\\bfencekit_([a-z_]+)\\b");

  private final Class<?> owner;
  private final Map<String, String> names;

  private SqlTemplates(Class<?> owner, Map<String, String> names) {
    this.owner = owner;
    this.names = names;
  }

  /**
   * Templates next to {@code owner}, with these tables.
   *
   * @param orders the orders table as it goes into SQL (quoted, perhaps schema-qualified)
   * @param orphans the orphans table as it goes into SQL
   * @param schema the namespace as it goes into SQL, or {@code null} if there is none
   */
  public static SqlTemplates forTables(
      Class<?> owner, String orders, String orphans, String schema) {
    Map<String, String> names = new HashMap<>();
    names.put("orders", orders);
    names.put("orphans", orphans);
    if (schema != null) {
      names.put("schema", schema);
    }
    names.put("order_columns", String.join(", ", OrderRows.ORDER_COLUMNS));
    names.put("order_values", values(OrderRows.ORDER_COLUMNS));
    names.put("state_assignments", String.join(" = ?, ", OrderRows.STATE_COLUMNS) + " = ?");
    names.put("orphan_columns", String.join(", ", OrderRows.ORPHAN_COLUMNS));
    names.put("orphan_values", values(OrderRows.ORPHAN_COLUMNS));
    names.put("orphan_record_columns", String.join(", ", OrderRows.ORPHAN_RECORD_COLUMNS));
    names.put("mismatch_columns", String.join(", ", OrderRows.MISMATCH_COLUMNS));
    names.put("mismatch_values", values(OrderRows.MISMATCH_COLUMNS));
    return new SqlTemplates(owner, Map.copyOf(names));
  }

  /**
   * These templates with more names: {@code fencekit_<key>} stands for each value (as it goes into
   * SQL, validated and quoted), such as the names {@link Migrations#derivedNames} derives.
   */
  public SqlTemplates with(Map<String, String> more) {
    Map<String, String> all = new HashMap<>(names);
    all.putAll(more);
    return new SqlTemplates(owner, Map.copyOf(all));
  }

  /**
   * The statement in {@code resource}, with every placeholder filled in and its whole-line comments
   * (lines whose first non-blank characters are {@code --}) left out: they document the resource,
   * and a driver that prepares on the client (MySQL Connector/J) would scan them and send them to
   * the server at every execution.
   *
   * @throws IllegalStateException if the resource is missing or uses an unknown placeholder
   */
  public String statement(String resource) {
    String template = COMMENT_LINE.matcher(raw(owner, resource)).replaceAll("");
    Matcher matcher = PLACEHOLDER.matcher(template);
    return matcher.replaceAll(
        match -> {
          String value = names.get(match.group(1));
          if (value == null) {
            throw new IllegalStateException(
                resource
                    + " next to "
                    + owner.getName()
                    + " uses the unknown placeholder "
                    + match.group()
                    + "; the jar is inconsistent, rebuild it");
          }
          return Matcher.quoteReplacement(value);
        });
  }

  /** The text of {@code resource} next to {@code owner} exactly as shipped. */
  public static String raw(Class<?> owner, String resource) {
    try (InputStream in = owner.getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException(
            "resource "
                + resource
                + " is missing next to "
                + owner.getName()
                + ": the jar is incomplete; rebuild it");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read resource " + resource, e);
    }
  }

  private static String values(List<String> columns) {
    return String.join(", ", java.util.Collections.nCopies(columns.size(), "?"));
  }
}
