package org.fencekit.store.postgres;

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
import org.fencekit.testsupport.TestPostgres;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The versioned schema on PostgreSQL: a database made by the first release (V1 only) with orders
 * and orphans in it is upgraded by createSchema(true) and loses nothing; without it, an older
 * schema is refused naming the script; a newer one is refused; concurrent starts upgrade once; and
 * each admin query can be answered from the index made for it.
 */
class PostgresSchemaUpgradeTest extends PostgresStoreTestSupport {

  private static final FirstReleaseOrders V1 = new FirstReleaseOrders(TestClock.START);

  private final List<String> made = new ArrayList<>();

  @AfterEach
  void dropOwnSchemas() {
    made.forEach(name -> TestPostgres.execute("DROP SCHEMA IF EXISTS " + name + " CASCADE"));
    made.clear();
  }

  /** A schema of this test's own, empty. */
  private String ownSchema(String label) {
    String name = schema.name() + "_" + label;
    TestPostgres.execute("DROP SCHEMA IF EXISTS " + name + " CASCADE");
    TestPostgres.execute("CREATE SCHEMA " + name);
    made.add(name);
    return name;
  }

  /** The schema as the first release left it: its script, run by hand, then its rows. */
  private String firstRelease(String label) throws SQLException {
    String own = ownSchema(label);
    try (Connection connection = TestPostgres.connect();
        Statement statement = connection.createStatement()) {
      statement.execute("SET search_path TO " + own);
      statement.execute(Sql.shippedScript(Migrations.SCRIPTS.get(0)));
      V1.insert(statement, false);
    }
    return own;
  }

  @Test
  @DisplayName(
      "a database of the first release, with orders and orphans, is upgraded by createSchema(true) and loses nothing; the new queries work on it")
  void firstReleaseUpgraded() throws Exception {
    String own = firstRelease("v1");
    PostgresOrderStore store = store(pooled().schema(own));
    V1.assertUpgraded(store);
    assertEquals(List.of(1, 2, 3, 4), versions(own));
    assertEquals(List.of(), checks(own), "V4 drops the orders table's CHECK constraints");

    PostgresOrderStore again = store(pooled().schema(own).createSchema(false));
    assertEquals(2, again.orphans("cs_done").size(), "an upgraded schema opens as it is");
  }

  /**
   * The orders table's CHECK constraints: none from V4 on. PostgreSQL builds each CHECK's
   * expression again (parsed and planned) for every statement that writes the table, which cost
   * more executor time than the rest of a claim's INSERT or a complete's UPDATE; the store checks
   * every record it writes before it writes it ({@code OrderRecord}), and the TCK holds the rules.
   */
  private static List<String> checks(String own) throws SQLException {
    return column(
        "SELECT conname FROM pg_constraint WHERE contype = 'c' AND conrelid = '"
            + own
            + ".fencekit_orders'::regclass ORDER BY 1",
        String.class);
  }

  @Test
  @DisplayName("a schema the store creates has no CHECK constraint on its orders table")
  void createdWithoutChecks() throws Exception {
    String own = ownSchema("created");
    store(pooled().schema(own));
    assertEquals(List.of(1, 2, 3, 4), versions(own));
    assertEquals(List.of(), checks(own));
  }

  private static List<Integer> versions(String own) throws SQLException {
    return column(
        "SELECT version FROM " + own + ".fencekit_orders_version ORDER BY 1", Integer.class);
  }

  /** The first column of {@code query}'s rows, in order. */
  private static <T> List<T> column(String query, Class<T> type) throws SQLException {
    List<T> values = new ArrayList<>();
    try (Connection connection = TestPostgres.connect();
        Statement statement = connection.createStatement();
        ResultSet rows = statement.executeQuery(query)) {
      while (rows.next()) {
        values.add(rows.getObject(1, type));
      }
    }
    return values;
  }

  @Test
  @DisplayName(
      "without createSchema, a first-release schema is refused naming V2, and left as it was")
  void olderRefusedWithoutCreate() throws Exception {
    String own = firstRelease("refused");
    IllegalStateException e =
        assertThrows(
            IllegalStateException.class, () -> pooled().schema(own).createSchema(false).build());
    String message = e.getMessage();
    assertTrue(message.contains("schema version 1"), message);
    assertTrue(
        message.contains("run db/migration/fencekit/postgres/V2__fencekit_operations.sql"),
        message);
    assertFalse(message.contains("V1__"), message);
    assertTrue(message.contains("createSchema(true)"), message);
    try (Connection connection = TestPostgres.connect();
        Statement statement = connection.createStatement();
        ResultSet rows =
            statement.executeQuery(
                "SELECT to_regclass('" + own + ".fencekit_orders_version') IS NULL")) {
      rows.next();
      assertTrue(rows.getBoolean(1), "nothing was changed");
    }
  }

  @Test
  @DisplayName("a database of a newer schema is refused, with or without createSchema")
  void newerRefused() {
    String own = ownSchema("newer");
    store(pooled().schema(own)).close();
    TestPostgres.execute(
        "INSERT INTO " + own + ".fencekit_orders_version VALUES (5, 'V5__from_the_future.sql')");
    for (boolean create : new boolean[] {true, false}) {
      IllegalStateException e =
          assertThrows(
              IllegalStateException.class, () -> pooled().schema(own).createSchema(create).build());
      assertTrue(e.getMessage().contains("schema version 5, newer than"), e.getMessage());
    }
  }

  @Test
  @DisplayName("a refused build closes the pool it built: no connection of it stays open")
  void refusedBuildClosesItsPool() throws Exception {
    String own = ownSchema("refused");
    store(pooled().schema(own)).close();
    TestPostgres.execute(
        "INSERT INTO " + own + ".fencekit_orders_version VALUES (5, 'V5__from_the_future.sql')");
    String application = own.replace('_', '-');
    String url = TestPostgres.jdbcUrl();
    url += (url.contains("?") ? "&" : "?") + "ApplicationName=" + application;
    for (boolean create : new boolean[] {true, false}) {
      PostgresOrderStore.Builder builder = pooled().jdbcUrl(url).schema(own).createSchema(create);
      assertThrows(IllegalStateException.class, builder::build);
    }
    assertEquals(
        0,
        OpenSessions.awaitNone(
            TestPostgres::connect,
            "SELECT count(*) FROM pg_stat_activity WHERE application_name = ?",
            application,
            Duration.ofSeconds(10)),
        "connections of the refused builds' pools still open");
  }

  @Test
  @DisplayName(
      "stores starting at once on a first-release schema upgrade it once, all of them working")
  void concurrentStartsUpgradeOnce() throws Exception {
    String own = firstRelease("concurrent");
    List<PostgresOrderStore> built = startAtOnce(4, () -> pooled().schema(own).build());
    assertEquals(List.of(1, 2, 3, 4), versions(own));
    for (PostgresOrderStore each : built) {
      assertEquals(2, each.orphans("cs_done").size());
      assertEquals(1, record(each, "cs_failed").failures(), "the backfill ran once");
    }
  }

  /**
   * Each admin query as PostgreSQL plans it with sequential scans ruled out: an index scan of the
   * partial index made for it. (On a table this small the planner would rather scan; the point is
   * that the index answers the query in its order, so it scales with the page, not the table.)
   */
  @Test
  @DisplayName("each admin query is answered from the index made for it, in its order")
  void plans() throws SQLException {
    String own = ownSchema("plans");
    store(pooled().schema(own)).close();
    Sql sql = Sql.forTables(own, "fencekit_orders", "fencekit_orphans");
    assertPlan(sql.admin().unreconciledOrphans(), 6, "fencekit_orphans_unreconciled");
    assertPlan(sql.admin().stuckOrders(), 4, "fencekit_orders_claims");
    assertPlan(sql.admin().failedOrders(), 5, "fencekit_orders_failed");
    assertPlan(sql.admin().mismatches(), 4, "fencekit_orders_mismatches_pkey");
  }

  private static void assertPlan(String query, int parameters, String index) throws SQLException {
    StringBuilder plan = new StringBuilder();
    try (Connection connection = TestPostgres.connect()) {
      try (Statement statement = connection.createStatement()) {
        statement.execute("SET enable_seqscan = off");
      }
      try (PreparedStatement explain = connection.prepareStatement("EXPLAIN " + query)) {
        for (int i = 1; i <= parameters; i++) {
          explain.setObject(i, (long) i, java.sql.Types.BIGINT);
        }
        // the text parameters: bind them as text where the statement has them
        bindTexts(explain, query);
        try (ResultSet rows = explain.executeQuery()) {
          while (rows.next()) {
            plan.append(rows.getString(1)).append('\n');
          }
        }
      }
    }
    String text = plan.toString();
    assertTrue(text.contains(index), () -> query + "\nplan:\n" + text);
    assertFalse(text.contains("Sort"), () -> query + "\nsorts:\n" + text);
    assertFalse(text.contains("Seq Scan"), () -> query + "\nscans:\n" + text);
  }

  /** Binds the parameters that compare with text columns as strings. */
  private static void bindTexts(PreparedStatement explain, String query) throws SQLException {
    if (query.contains("claim_nonce, provider_order_id) > (?, ?, ?, ?, ?)")) {
      explain.setString(2, "cs");
      explain.setString(4, "n");
      explain.setString(5, "p");
    } else if (query.contains("lease_expires_at, session_id) > (?, ?)")) {
      explain.setString(3, "cs");
    } else if (query.contains("failed_since, session_id) > (?, ?)")) {
      explain.setString(4, "cs");
    } else if (query.contains("(recorded_at, session_id, nonce) > (?, ?, ?)")) {
      explain.setString(2, "cs");
      explain.setString(3, "n");
    }
  }
}
