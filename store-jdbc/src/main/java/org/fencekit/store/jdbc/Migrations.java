package org.fencekit.store.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;

/**
 * The versioned DDL of the SQL stores: the scripts each store's jar ships under {@code
 * db/migration/fencekit/<dialect>/} with Flyway's names ({@code V1__fencekit_tables.sql}, {@code
 * V2__fencekit_operations.sql}), the version a database holds and what a store does about it at
 * start. V1 is the schema of the first release (no version table); V2 adds the failure count, the
 * reconciliation and the admin indexes, creates the version table ({@code <orders table>_version})
 * and records versions 1 and 2 in it; V3 adds the table of mismatched claims ({@code <orders
 * table>_mismatches}, whose primary key is the listing's order) and records version 3. Orders
 * stored before V3 need nothing computed: the fields a claim compares are the snapshot's own
 * columns, which every version stores. V4 drops PostgreSQL's CHECK constraints on the orders table
 * (PostgreSQL plans each again for every write; the store checks every record it writes) and
 * changes nothing on the other stores but the version it records: the versions are one sequence.
 *
 * <p>A store reads the version when it starts: the same as {@link #LATEST} starts; older (or no
 * tables) refuses with a message naming the scripts to run, unless the store may create its schema,
 * when it runs them in one transaction; newer refuses (a later fencekit wrote it).
 */
public final class Migrations {

  /**
   * One script.
   *
   * @param version what it upgrades to
   * @param name its file name, Flyway's {@code V<version>__<description>.sql}
   */
  public record Script(int version, String name) {

    /** Where it is on the class path, for {@code dialect} ("sqlite", "postgres", "mysql"). */
    public String resource(String dialect) {
      return "/db/migration/fencekit/" + dialect + "/" + name;
    }
  }

  /** Every script, in order. */
  public static final List<Script> SCRIPTS =
      List.of(
          new Script(1, "V1__fencekit_tables.sql"),
          new Script(2, "V2__fencekit_operations.sql"),
          new Script(3, "V3__fencekit_mismatches.sql"),
          new Script(4, "V4__fencekit_checks_in_the_store.sql"));

  /** The version the stores of this build need. */
  public static final int LATEST = SCRIPTS.get(SCRIPTS.size() - 1).version();

  /**
   * How a store finds what is installed.
   *
   * @param tableExists a query with one parameter, a table as {@code ordersTable} and {@code
   *     versionTable} name it, returning a row with a true value (or a count above zero) if it
   *     exists
   * @param ordersTable the orders table, as {@code tableExists} takes it
   * @param versionTable the version table, as {@code tableExists} takes it
   * @param selectVersion the highest version in the version table
   */
  public record Probe(
      String tableExists, String ordersTable, String versionTable, String selectVersion) {}

  /**
   * Where a store reports from.
   *
   * @param backend the store's name: "sqlite", "postgres"
   * @param dialect the scripts' folder: "sqlite", "postgres"
   * @param module the jar that ships them: "store-sqlite", "store-postgres"
   * @param where where the data lives, for messages, without credentials
   * @param tables how to put the configured names in a script, for messages
   */
  public record Origin(
      String backend, String dialect, String module, String where, String tables) {}

  private Migrations() {}

  /**
   * The placeholders a script or admin query uses beyond the tables: the version table and the
   * indexes, named after the tables.
   *
   * @param orders the orders table's configured name (validated, unquoted)
   * @param orphans the orphans table's configured name
   * @param asTable how a table name goes into SQL (quoted, perhaps schema-qualified)
   * @param asIndex how an index name goes into SQL (quoted, never qualified)
   */
  public static Map<String, String> derivedNames(
      String orders, String orphans, UnaryOperator<String> asTable, UnaryOperator<String> asIndex) {
    return Map.of(
        "orders_version", asTable.apply(orders + "_version"),
        "orders_mismatches", asTable.apply(orders + "_mismatches"),
        "orders_claims", asIndex.apply(orders + "_claims"),
        "orders_failed", asIndex.apply(orders + "_failed"),
        "orphans_unreconciled", asIndex.apply(orphans + "_unreconciled"));
  }

  /**
   * The version the database holds: the version table's highest, else 1 if the orders table exists
   * (the first release made no version table), else 0.
   */
  public static int installed(Connection connection, Probe probe) throws SQLException {
    if (exists(connection, probe.tableExists(), probe.versionTable())) {
      try (Statement statement = connection.createStatement();
          ResultSet rows = statement.executeQuery(probe.selectVersion())) {
        return rows.next() ? rows.getInt(1) : 0;
      }
    }
    return exists(connection, probe.tableExists(), probe.ordersTable()) ? 1 : 0;
  }

  private static boolean exists(Connection connection, String query, String table)
      throws SQLException {
    try (PreparedStatement statement = connection.prepareStatement(query)) {
      statement.setString(1, table);
      try (ResultSet rows = statement.executeQuery()) {
        return rows.next() && rows.getLong(1) > 0;
      }
    }
  }

  /**
   * Brings the database to {@link #LATEST} or refuses, on {@code connection}, inside the caller's
   * transaction (which also keeps two starting stores from both upgrading): runs the missing
   * scripts if {@code create}, else throws naming them.
   *
   * @param sql the store's templates, for the configured names
   * @return the scripts run, oldest first; empty if the database was up to date. A database of the
   *     first release (no version table) runs V1 again too, which creates only what is missing
   * @throws IllegalStateException if the schema is newer, or older and {@code create} is false
   */
  public static List<Script> ensure(
      Connection connection, Probe probe, SqlTemplates sql, Origin origin, boolean create)
      throws SQLException {
    return ensure(connection, probe, sql, origin, create, e -> false);
  }

  /**
   * {@link #ensure(Connection, Probe, SqlTemplates, Origin, boolean)} for a dialect whose DDL
   * commits each statement (MySQL), so a run cut short leaves some done: a statement that fails
   * with an error {@code alreadyDone} recognises (a column or an index that exists) is skipped, and
   * the scripts can run again until the last one records the version.
   */
  public static List<Script> ensure(
      Connection connection,
      Probe probe,
      SqlTemplates sql,
      Origin origin,
      boolean create,
      Predicate<SQLException> alreadyDone)
      throws SQLException {
    int installed = installed(connection, probe);
    if (installed > LATEST) {
      throw new IllegalStateException(
          origin.backend()
              + " store: "
              + origin.where()
              + " holds fencekit schema version "
              + installed
              + ", newer than the version "
              + LATEST
              + " this store works with (a later fencekit upgraded it); run this application with"
              + " that fencekit version or later, or point it at another database. Nothing was"
              + " changed");
    }
    List<Script> missing = SCRIPTS.stream().filter(s -> s.version() > installed).toList();
    if (missing.isEmpty()) {
      return List.of();
    }
    if (!create) {
      throw new IllegalStateException(
          origin.backend()
              + " store: "
              + origin.where()
              + (installed == 0
                  ? " has no fencekit tables"
                  : " holds fencekit schema version " + installed)
              + " but this store needs version "
              + LATEST
              + "; run "
              + String.join(
                  ", then ",
                  missing.stream().map(s -> s.resource(origin.dialect()).substring(1)).toList())
              + " from the "
              + origin.module()
              + " jar (from your Flyway or Liquibase migrations, "
              + origin.tables()
              + "), or build the store with createSchema(true) to run "
              + (missing.size() == 1 ? "it" : "them")
              + " at start. Nothing was changed");
    }
    List<Script> run = missing;
    if (installed == 1) {
      // no version table: a first release's tables, or ones of that name made by something else
      requireFirstReleaseShape(connection, probe, origin);
      run = SCRIPTS; // V1 creates only what is missing, such as an orphans table never made
    }
    try (Statement statement = connection.createStatement()) {
      for (Script script : run) {
        for (String ddl : statements(sql.statement(script.resource(origin.dialect())))) {
          try {
            statement.execute(ddl);
          } catch (SQLException e) {
            if (!alreadyDone.test(e)) {
              throw e;
            }
          }
        }
      }
    }
    return missing;
  }

  private static void requireFirstReleaseShape(Connection connection, Probe probe, Origin origin) {
    List<String> columns = OrderRows.ORDER_COLUMNS.subList(0, OrderRows.ORDER_COLUMNS.size() - 2);
    String query =
        "SELECT " + String.join(", ", columns) + " FROM " + probe.ordersTable() + " WHERE 1 = 0";
    try (PreparedStatement statement = connection.prepareStatement(query)) {
      statement.getMetaData();
    } catch (SQLException e) {
      throw new IllegalStateException(
          origin.backend()
              + " store: the table "
              + probe.ordersTable()
              + " in "
              + origin.where()
              + " exists but has neither a version table nor the columns of fencekit's first"
              + " schema ("
              + e.getMessage()
              + "); choose other table names, or move the existing table away. Nothing was"
              + " changed",
          e);
    }
  }

  /**
   * Splits a script into statements at semicolons that end a line (the scripts keep them out of
   * comments), dropping parts that are only comments.
   */
  public static List<String> statements(String script) {
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
