package org.fencekit.store.postgres;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The store's SQL, read once from the resources next to this class and bound to the configured
 * table names. The resources name the default tables ({@code fencekit_orders}, {@code
 * fencekit_orphans}) so that each file is valid SQL as it stands; this class replaces those words
 * with the configured names, which {@code Validate.identifier} has checked, lower-cased and
 * double-quoted (the same table PostgreSQL folds an unquoted name to, and safe for a name that is a
 * keyword). Every value travels as a bound parameter.
 */
record Sql(
    String createNamespace,
    String schema,
    String selectOrder,
    String lockOrder,
    String insertOrder,
    String updateOrder,
    String insertOrphan,
    String selectOrphans,
    String completeFast,
    String failFast,
    String extendFast) {

  private static final Pattern NAMES = Pattern.compile("\\bfencekit_(orders|orphans|schema)\\b");

  private static final Map<String, String> TEMPLATES =
      Map.ofEntries(
          Map.entry("create-namespace", load("create-namespace.sql")),
          Map.entry("schema", load("schema.sql")),
          Map.entry("select-order", load("select-order.sql")),
          Map.entry("lock-order", load("lock-order.sql")),
          Map.entry("insert-order", load("insert-order.sql")),
          Map.entry("update-order", load("update-order.sql")),
          Map.entry("insert-orphan", load("insert-orphan.sql")),
          Map.entry("select-orphans", load("select-orphans.sql")),
          Map.entry("complete-fast", load("complete-fast.sql")),
          Map.entry("fail-fast", load("fail-fast.sql")),
          Map.entry("extend-fast", load("extend-fast.sql")));

  /**
   * The statements for these names, each already validated as a plain identifier.
   *
   * @param schema the schema (namespace) holding both tables, or {@code null} for the search path
   */
  static Sql forTables(String schema, String ordersTable, String orphansTable) {
    String prefix = schema == null ? "" : quote(schema) + ".";
    Map<String, String> names =
        Map.of(
            "orders", prefix + quote(ordersTable),
            "orphans", prefix + quote(orphansTable),
            "schema", schema == null ? "" : quote(schema));
    return new Sql(
        bind("create-namespace", names),
        bind("schema", names),
        bind("select-order", names),
        bind("lock-order", names),
        bind("insert-order", names),
        bind("update-order", names),
        bind("insert-orphan", names),
        bind("select-orphans", names),
        bind("complete-fast", names),
        bind("fail-fast", names),
        bind("extend-fast", names));
  }

  /** The text of {@code schema.sql} exactly as shipped, for users who run their own migrations. */
  static String shippedSchema() {
    return TEMPLATES.get("schema");
  }

  private static String bind(String template, Map<String, String> names) {
    Matcher matcher = NAMES.matcher(TEMPLATES.get(template));
    return matcher.replaceAll(match -> Matcher.quoteReplacement(names.get(match.group(1))));
  }

  private static String quote(String identifier) {
    return '"' + identifier.toLowerCase(Locale.ROOT) + '"';
  }

  private static String load(String resource) {
    try (InputStream in = Sql.class.getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException(
            "resource "
                + resource
                + " is missing next to "
                + Sql.class.getName()
                + ": the store-postgres jar is incomplete; rebuild it");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read resource " + resource, e);
    }
  }
}
