package org.fencekit.store.mysql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.fencekit.store.jdbc.FirstReleaseOrders;
import org.fencekit.store.jdbc.Migrations;
import org.fencekit.tck.TestClock;
import org.fencekit.testsupport.OpenSessions;
import org.fencekit.testsupport.TestMysql;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The versioned schema on MySQL: a database made by the first release (V1 only) with orders and
 * orphans in it is upgraded by createSchema(true) and loses nothing; an upgrade cut short (MySQL
 * commits each DDL statement) is finished by the next start; without createSchema an older schema
 * is refused naming the script; a newer one is refused; concurrent starts upgrade once; and each
 * admin query is a range scan of the index made for it.
 */
class MysqlSchemaUpgradeTest extends MysqlStoreTestSupport {

  private static final FirstReleaseOrders V1 = new FirstReleaseOrders(TestClock.START);

  private final List<String> made = new ArrayList<>();

  @AfterEach
  void dropOwnDatabases() {
    made.forEach(name -> TestMysql.execute(database.jdbcUrl(), "DROP DATABASE IF EXISTS " + name));
    made.clear();
  }

  /** A database of this test's own, empty; its URL. */
  private String ownDatabase(String label) {
    String name = database.name() + "_" + label;
    TestMysql.execute(database.jdbcUrl(), "DROP DATABASE IF EXISTS " + name);
    TestMysql.execute(database.jdbcUrl(), "CREATE DATABASE " + name);
    made.add(name);
    return TestMysql.withDatabase(database.jdbcUrl(), name);
  }

  /** The database as the first release left it: its script, run by hand, then its rows. */
  private String firstRelease(String label) throws SQLException {
    String url = ownDatabase(label);
    try (Connection connection = TestMysql.connect(url);
        Statement statement = connection.createStatement()) {
      for (String ddl : Migrations.statements(Sql.shippedScript(Migrations.SCRIPTS.get(0)))) {
        statement.execute(ddl);
      }
      V1.insert(statement, false);
    }
    return url;
  }

  private MysqlOrderStore.Builder at(String url) {
    return pooled().jdbcUrl(url);
  }

  @Test
  @DisplayName(
      "a database of the first release, with orders and orphans, is upgraded by createSchema(true) and loses nothing; the new queries work on it")
  void firstReleaseUpgraded() throws Exception {
    String url = firstRelease("v1");
    MysqlOrderStore store = store(at(url));
    V1.assertUpgraded(store);
    assertEquals(List.of(1, 2, 3, 4), versions(url));

    MysqlOrderStore again = store(at(url).createSchema(false));
    assertEquals(2, again.orphans("cs_done").size(), "an upgraded schema opens as it is");
  }

  @Test
  @DisplayName(
      "an upgrade cut short after some of V2's statements (each DDL commits on MySQL) is finished by the next start, the backfill run once")
  void partialUpgradeFinished() throws Exception {
    String url = firstRelease("partial");
    List<String> v2 = Migrations.statements(Sql.shippedScript(Migrations.SCRIPTS.get(1)));
    try (Connection connection = TestMysql.connect(url);
        Statement statement = connection.createStatement()) {
      for (String ddl : v2.subList(0, 6)) { // the columns and the backfill, no index, no version
        statement.execute(ddl);
      }
    }
    assertEquals(List.of(), versions(url), "the version table comes last");
    MysqlOrderStore store = store(at(url));
    V1.assertUpgraded(store);
    assertEquals(1, record(store, "cs_failed").failures(), "the backfill ran once");
    assertEquals(List.of(1, 2, 3, 4), versions(url));
  }

  private static List<Integer> versions(String url) throws SQLException {
    List<Integer> versions = new ArrayList<>();
    try (Connection connection = TestMysql.connect(url);
        Statement statement = connection.createStatement();
        ResultSet tables =
            statement.executeQuery(
                "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = DATABASE()"
                    + " AND table_name = 'fencekit_orders_version'")) {
      tables.next();
      if (tables.getInt(1) == 0) {
        return versions;
      }
    }
    try (Connection connection = TestMysql.connect(url);
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
      "without createSchema, a first-release database is refused naming V2, and left as it was")
  void olderRefusedWithoutCreate() throws Exception {
    String url = firstRelease("refused");
    IllegalStateException e =
        assertThrows(IllegalStateException.class, () -> at(url).createSchema(false).build());
    String message = e.getMessage();
    assertTrue(message.contains("schema version 1"), message);
    assertTrue(
        message.contains("run db/migration/fencekit/mysql/V2__fencekit_operations.sql"), message);
    assertFalse(message.contains("V1__"), message);
    assertTrue(message.contains("createSchema(true)"), message);
    assertEquals(List.of(), versions(url), "nothing was changed");
  }

  @Test
  @DisplayName("an empty database is refused without createSchema, naming both scripts")
  void emptyRefusedWithoutCreate() {
    String url = ownDatabase("empty");
    IllegalStateException e =
        assertThrows(IllegalStateException.class, () -> at(url).createSchema(false).build());
    assertTrue(e.getMessage().contains("has no fencekit tables"), e.getMessage());
    assertTrue(
        e.getMessage()
            .contains(
                "run db/migration/fencekit/mysql/V1__fencekit_tables.sql, then"
                    + " db/migration/fencekit/mysql/V2__fencekit_operations.sql"),
        e.getMessage());
  }

  @Test
  @DisplayName("a database of a newer schema is refused, with or without createSchema")
  void newerRefused() {
    String url = ownDatabase("newer");
    store(at(url)).close();
    TestMysql.execute(
        url, "INSERT INTO fencekit_orders_version VALUES (5, 'V5__from_the_future.sql')");
    for (boolean create : new boolean[] {true, false}) {
      IllegalStateException e =
          assertThrows(IllegalStateException.class, () -> at(url).createSchema(create).build());
      assertTrue(e.getMessage().contains("schema version 5, newer than"), e.getMessage());
    }
  }

  @Test
  @DisplayName("a refused build closes the pool it built: no connection of it stays open")
  void refusedBuildClosesItsPool() throws Exception {
    String url = ownDatabase("refused");
    String name = database.name() + "_refused";
    store(at(url)).close();
    TestMysql.execute(
        url, "INSERT INTO fencekit_orders_version VALUES (5, 'V5__from_the_future.sql')");
    for (boolean create : new boolean[] {true, false}) {
      assertThrows(IllegalStateException.class, at(url).createSchema(create)::build);
    }
    assertEquals(
        0,
        OpenSessions.awaitNone(
            () -> TestMysql.connect(database.jdbcUrl()),
            "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE DB = ?",
            name,
            Duration.ofSeconds(10)),
        "connections of the refused builds' pools still open");
  }

  @Test
  @DisplayName(
      "stores starting at once on a first-release database upgrade it once, all of them working")
  void concurrentStartsUpgradeOnce() throws Exception {
    String url = firstRelease("concurrent");
    List<MysqlOrderStore> built = startAtOnce(4, () -> at(url).build());
    assertEquals(List.of(1, 2, 3, 4), versions(url));
    for (MysqlOrderStore each : built) {
      assertEquals(2, each.orphans("cs_done").size());
      assertEquals(1, record(each, "cs_failed").failures(), "the backfill ran once");
    }
  }

  /**
   * Each admin query as the server plans it for a page after a cursor: a range scan of the index
   * made for it, starting at the cursor (not a scan from the start of the index filtered down), in
   * the index's order (no filesort). The rows make the table big enough that a full scan would cost
   * more.
   */
  @Test
  @DisplayName(
      "each admin query is a range scan of the index made for it, from the cursor, in its order")
  void plans() throws SQLException {
    String url = ownDatabase("plans");
    store(at(url)).close();
    try (Connection connection = TestMysql.connect(url);
        Statement statement = connection.createStatement()) {
      statement.execute("SET SESSION max_recursive_iterations = 10000");
      statement.execute(
          "INSERT INTO fencekit_orders (session_id, product_id, quantity, amount_total, currency,"
              + " status, fence, claim_nonce, claimed_at, lease_expires_at, updated_at, failures,"
              + " failed_since, last_error)"
              + " WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000)"
              + " SELECT CONCAT('cs_', i), 'p', 1, 1, 'usd', IF(i % 2 = 0, 'FAILED', 'PENDING'),"
              + " 1, IF(i % 2 = 0, NULL, REPEAT('a', 32)), IF(i % 2 = 0, NULL, i),"
              + " IF(i % 2 = 0, NULL, i), i, i % 2, IF(i % 2 = 0, i, NULL),"
              + " IF(i % 2 = 0, 'x', NULL) FROM n");
      statement.execute(
          "INSERT INTO fencekit_orphans (session_id, claim_fence, claim_nonce, provider_order_id,"
              + " item_payload, recorded_at, reconciled_note, reconciled_at)"
              + " WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000)"
              + " SELECT CONCAT('cs_', i), 1, REPEAT('b', 32), 'p', NULL, i,"
              + " IF(i % 2 = 0, 'done', NULL), IF(i % 2 = 0, i, NULL) FROM n");
      statement.execute(
          "INSERT INTO fencekit_orders_mismatches (recorded_at, session_id, nonce,"
              + " stored_product_id, stored_quantity, stored_amount_total, stored_currency,"
              + " offered_product_id, offered_quantity, offered_amount_total, offered_currency)"
              + " WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000)"
              + " SELECT i, CONCAT('cs_', i), REPEAT('c', 32), 'p', 1, 1, 'usd', 'q', 2, 1, 'usd'"
              + " FROM n");
      statement.execute(
          "ANALYZE TABLE fencekit_orders, fencekit_orphans, fencekit_orders_mismatches");
    }
    Sql sql = Sql.forTables("fencekit_orders", "fencekit_orphans");
    // a page after the cursor at 2001 / cs_2001 of 3000 rows: a range read from there, no more
    assertPlan(
        url,
        sql.admin().unreconciledOrphans(),
        List.of(2001L, "cs_2001", 1L, "b".repeat(32), "p", 10),
        "fencekit_orphans_unreconciled");
    assertPlan(
        url,
        sql.admin().stuckOrders(),
        List.of(2500L, 2001L, "cs_2001", 10),
        "fencekit_orders_claims");
    assertPlan(
        url,
        sql.admin().failedOrders(),
        List.of(1, 2500L, 2000L, "cs_2000", 10),
        "fencekit_orders_failed");
    assertPlan(
        url, sql.admin().mismatches(), List.of(2001L, "cs_2001", "c".repeat(32), 10), "PRIMARY");
  }

  private static void assertPlan(String url, String query, List<Object> parameters, String index)
      throws SQLException {
    List<String> plan = new ArrayList<>();
    long rows = 0;
    try (Connection connection = TestMysql.connect(url);
        PreparedStatement explain = connection.prepareStatement("EXPLAIN " + query)) {
      for (int i = 0; i < parameters.size(); i++) {
        explain.setObject(i + 1, parameters.get(i));
      }
      try (ResultSet result = explain.executeQuery()) {
        while (result.next()) {
          String table = result.getString("table");
          if (table != null && table.startsWith("fencekit_")) {
            plan.add(result.getString("type") + " " + result.getString("key"));
            rows = result.getLong("rows");
          }
          plan.add(String.valueOf(result.getString("Extra")));
        }
      }
    }
    String text = String.join("\n", plan);
    assertTrue(text.contains("range " + index), () -> query + "\nplan:\n" + text);
    assertFalse(text.contains("filesort"), () -> query + "\nsorts:\n" + text);
    long read = rows;
    assertTrue(read < 1200, () -> "reads " + read + " rows, not from the cursor on:\n" + text);
  }
}
