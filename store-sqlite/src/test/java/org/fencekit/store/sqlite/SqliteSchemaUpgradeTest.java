package org.fencekit.store.sqlite;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.fencekit.store.jdbc.FirstReleaseOrders;
import org.fencekit.store.jdbc.Migrations;
import org.fencekit.store.jdbc.SqlTemplates;
import org.fencekit.tck.TestClock;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The versioned schema on SQLite: a file made by the first release (V1 only, as that release made
 * it) with orders and orphans in it is upgraded at open and loses nothing; an older file without
 * createSchema, and a newer one, are refused naming what to do; each admin query is a range scan of
 * its own index.
 */
class SqliteSchemaUpgradeTest {

  private static final FirstReleaseOrders V1 = new FirstReleaseOrders(TestClock.START);

  @TempDir Path dir;

  private Path file() {
    return dir.resolve("orders.db");
  }

  private Connection raw() throws SQLException {
    return DriverManager.getConnection("jdbc:sqlite:" + file());
  }

  /** The file as the first release left it: its schema script, then its rows. */
  private void firstReleaseFile() throws SQLException {
    String v1 =
        SqlTemplates.raw(SqliteOrderStore.class, Migrations.SCRIPTS.get(0).resource("sqlite"));
    try (Connection connection = raw();
        Statement statement = connection.createStatement()) {
      for (String ddl : Migrations.statements(v1)) {
        statement.execute(ddl);
      }
      V1.insert(statement, true);
    }
  }

  @Test
  @DisplayName(
      "a file of the first release, with orders and orphans, is upgraded at open and loses nothing; the new queries work on it")
  void firstReleaseUpgraded() throws Exception {
    firstReleaseFile();
    TestClock clock = new TestClock();
    try (SqliteOrderStore store = SqliteOrderStore.builder(file()).clock(clock).build()) {
      V1.assertUpgraded(store);
    }
    assertEquals(List.of(1, 2, 3, 4), versions(), "the version table records every script");
    try (SqliteOrderStore again = SqliteOrderStore.builder(file()).createSchema(false).build()) {
      assertEquals(2, again.orphans("cs_done").size(), "an upgraded file opens as it is");
    }
  }

  private List<Integer> versions() throws SQLException {
    List<Integer> versions = new ArrayList<>();
    try (Connection connection = raw();
        Statement statement = connection.createStatement();
        ResultSet rows =
            statement.executeQuery("SELECT version FROM fencekit_orders_version ORDER BY 1")) {
      while (rows.next()) {
        versions.add(rows.getInt(1));
      }
    }
    return versions;
  }

  @Test
  @DisplayName(
      "without createSchema, a first-release file is refused naming V2, and left as it was")
  void olderRefusedWithoutCreate() throws Exception {
    firstReleaseFile();
    IllegalStateException e =
        assertThrows(
            IllegalStateException.class,
            () -> SqliteOrderStore.builder(file()).createSchema(false).build());
    String message = e.getMessage();
    assertTrue(message.contains("schema version 1"), message);
    assertTrue(
        message.contains("run db/migration/fencekit/sqlite/V2__fencekit_operations.sql"), message);
    assertFalse(message.contains("V1__"), message);
    assertTrue(message.contains("createSchema(true)"), message);
    try (Connection connection = raw();
        Statement statement = connection.createStatement();
        ResultSet rows =
            statement.executeQuery(
                "SELECT count(*) FROM sqlite_master WHERE name = 'fencekit_orders_version'")) {
      rows.next();
      assertEquals(0, rows.getInt(1), "nothing was changed");
    }
  }

  @Test
  @DisplayName("without createSchema, an empty file is refused naming V1 then V2")
  void emptyRefusedWithoutCreate() {
    IllegalStateException e =
        assertThrows(
            IllegalStateException.class,
            () -> SqliteOrderStore.builder(file()).createSchema(false).build());
    assertTrue(
        e.getMessage()
            .contains(
                "run db/migration/fencekit/sqlite/V1__fencekit_tables.sql, then"
                    + " db/migration/fencekit/sqlite/V2__fencekit_operations.sql"),
        e.getMessage());
  }

  @Test
  @DisplayName("a file of a newer schema is refused, with or without createSchema")
  void newerRefused() throws Exception {
    SqliteOrderStore.builder(file()).build().close();
    try (Connection connection = raw();
        Statement statement = connection.createStatement()) {
      statement.execute(
          "INSERT INTO fencekit_orders_version VALUES (5, 'V5__from_the_future.sql')");
    }
    for (boolean create : new boolean[] {true, false}) {
      IllegalStateException e =
          assertThrows(
              IllegalStateException.class,
              () -> SqliteOrderStore.builder(file()).createSchema(create).build());
      assertTrue(e.getMessage().contains("schema version 5, newer than"), e.getMessage());
    }
  }

  @Test
  @DisplayName("other table names get their own version table and indexes")
  void configuredNames() throws Exception {
    try (SqliteOrderStore store =
        SqliteOrderStore.builder(file()).ordersTable("shop").orphansTable("shop_lost").build()) {
      assertTrue(store.unreconciledOrphans(null, 5).items().isEmpty());
    }
    List<String> names = new ArrayList<>();
    try (Connection connection = raw();
        Statement statement = connection.createStatement();
        ResultSet rows =
            statement.executeQuery(
                "SELECT name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY 1")) {
      while (rows.next()) {
        names.add(rows.getString(1));
      }
    }
    assertEquals(
        List.of(
            "shop",
            "shop_claims",
            "shop_failed",
            "shop_lost",
            "shop_lost_unreconciled",
            "shop_mismatches",
            "shop_version"),
        names);
  }

  /**
   * Each admin query, as SQLite plans it: a search of the index made for it, in its order (no
   * temporary B-tree to sort), never a scan of the table.
   */
  @Test
  @DisplayName("each admin query is a range search of its own index, with no sort and no scan")
  void plans() throws Exception {
    SqliteOrderStore.builder(file()).build().close();
    Statements sql = Statements.forTables("fencekit_orders", "fencekit_orphans");
    assertPlan(sql.admin().unreconciledOrphans(), 6, "fencekit_orphans_unreconciled");
    assertPlan(sql.admin().stuckOrders(), 4, "fencekit_orders_claims");
    assertPlan(sql.admin().failedOrders(), 5, "fencekit_orders_failed");
    assertPlan(sql.admin().orphan(), 4, "sqlite_autoindex_fencekit_orphans_1");
    assertPlan(sql.admin().mismatches(), 4, "sqlite_autoindex_fencekit_orders_mismatches_1");
  }

  private void assertPlan(String query, int parameters, String index) throws SQLException {
    StringBuilder plan = new StringBuilder();
    try (Connection connection = raw();
        PreparedStatement explain = connection.prepareStatement("EXPLAIN QUERY PLAN " + query)) {
      for (int i = 1; i <= parameters; i++) {
        explain.setLong(i, 1);
      }
      try (ResultSet rows = explain.executeQuery()) {
        while (rows.next()) {
          plan.append(rows.getString("detail")).append('\n');
        }
      }
    }
    String text = plan.toString();
    assertTrue(text.contains("USING INDEX " + index), () -> query + "\nplan:\n" + text);
    assertFalse(text.contains("TEMP B-TREE"), () -> query + "\nsorts:\n" + text);
    assertFalse(
        text.matches("(?s).*SCAN fencekit_\\w+\\s*\n.*"), () -> query + "\nscans:\n" + text);
  }
}
