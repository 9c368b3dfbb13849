package org.fencekit.store.postgres;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.function.UnaryOperator;
import org.fencekit.store.ClaimId;
import org.fencekit.store.Item;
import org.fencekit.store.OrderSnapshot;
import org.fencekit.store.StoreUnavailableException;
import org.fencekit.store.jdbc.Migrations;
import org.fencekit.tck.TestClock;
import org.fencekit.testsupport.LoopbackPorts;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The builder's checks and the store's failure messages, with no server: a closed port stands in
 * for a PostgreSQL that is down.
 */
class PostgresOrderStoreBuilderTest {

  private static final String SECRET = "secret";

  private static PostgresOrderStore.Builder withDataSource() {
    return PostgresOrderStore.builder().dataSource(new PGSimpleDataSource());
  }

  private static IllegalArgumentException rejects(
      UnaryOperator<PostgresOrderStore.Builder> config) {
    return assertThrows(
        IllegalArgumentException.class, () -> config.apply(withDataSource()).build());
  }

  /**
   * The build of a store at {@code url}, a server that does not answer, with half a second to wait.
   */
  private static StoreUnavailableException failsToBuild(
      String url, UnaryOperator<PostgresOrderStore.Builder> config) {
    return assertThrows(
        StoreUnavailableException.class,
        () ->
            config
                .apply(
                    PostgresOrderStore.builder()
                        .jdbcUrl(url)
                        .connectionTimeout(Duration.ofMillis(500)))
                .build());
  }

  @Test
  @DisplayName(
      "a table or schema name that is not a plain identifier is rejected, naming the property")
  void identifiers() {
    assertTrue(
        rejects(b -> b.ordersTable("orders; DROP TABLE x")).getMessage().startsWith("ordersTable"));
    assertTrue(rejects(b -> b.orphansTable("or-phans")).getMessage().startsWith("orphansTable"));
    assertTrue(rejects(b -> b.schema("\"public\"")).getMessage().startsWith("schema"));
    assertTrue(rejects(b -> b.ordersTable("")).getMessage().startsWith("ordersTable"));
    assertTrue(
        rejects(b -> b.ordersTable("t").orphansTable("T")).getMessage().startsWith("orphansTable"));
    NullPointerException nullTable =
        assertThrows(NullPointerException.class, () -> withDataSource().ordersTable(null).build());
    assertEquals("ordersTable", nullTable.getMessage());
    NullPointerException nullClock =
        assertThrows(NullPointerException.class, () -> withDataSource().clock(null).build());
    assertEquals("clock", nullClock.getMessage());
  }

  @Test
  @DisplayName("exactly one of dataSource and jdbcUrl, and pool settings only with jdbcUrl")
  void source() {
    String neither =
        assertThrows(IllegalArgumentException.class, () -> PostgresOrderStore.builder().build())
            .getMessage();
    assertTrue(neither.contains("dataSource or jdbcUrl"), neither);
    assertTrue(
        rejects(b -> b.jdbcUrl("jdbc:postgresql://h/db")).getMessage().startsWith("jdbcUrl"));
    assertTrue(rejects(b -> b.maximumPoolSize(3)).getMessage().startsWith("maximumPoolSize"));
    assertTrue(rejects(b -> b.username("u")).getMessage().startsWith("username"));
    assertTrue(rejects(b -> b.password("p")).getMessage().startsWith("password"));
    assertTrue(
        rejects(b -> b.connectionTimeout(Duration.ofSeconds(1)))
            .getMessage()
            .startsWith("connectionTimeout"));
    assertTrue(
        rejects(b -> b.pgBouncerBefore121(true)).getMessage().startsWith("pgBouncerBefore121"));
  }

  @Test
  @DisplayName("pool sizes and timeouts out of range are rejected, naming the property")
  void ranges() {
    PostgresOrderStore.Builder url =
        PostgresOrderStore.builder().jdbcUrl("jdbc:postgresql://127.0.0.1:1/db");
    assertTrue(
        assertThrows(IllegalArgumentException.class, () -> url.maximumPoolSize(0).build())
            .getMessage()
            .startsWith("maximumPoolSize"));
    url.maximumPoolSize(1);
    assertTrue(
        assertThrows(
                IllegalArgumentException.class,
                () -> url.connectionTimeout(Duration.ofMillis(10)).build())
            .getMessage()
            .startsWith("connectionTimeout"));
    url.connectionTimeout(Duration.ofSeconds(1));
    assertTrue(rejects(b -> b.queryTimeout(Duration.ZERO)).getMessage().startsWith("queryTimeout"));
    assertTrue(
        rejects(b -> b.queryTimeout(Duration.ofDays(2))).getMessage().startsWith("queryTimeout"));
  }

  @Test
  @DisplayName("a URL that is not PostgreSQL's is rejected without echoing its password")
  void foreignUrl() {
    String message =
        assertThrows(
                IllegalArgumentException.class,
                () ->
                    PostgresOrderStore.builder()
                        .jdbcUrl("jdbc:mysql://db:3306/shop?user=app&password=" + SECRET)
                        .build())
            .getMessage();
    assertTrue(message.startsWith("jdbcUrl"), message);
    assertFalse(message.contains(SECRET), message);
  }

  @Test
  @DisplayName("a password in the URL and by password() at once is rejected")
  void passwordTwice() {
    String message =
        assertThrows(
                IllegalArgumentException.class,
                () ->
                    PostgresOrderStore.builder()
                        .jdbcUrl("jdbc:postgresql://127.0.0.1:1/db?password=" + SECRET)
                        .password("other")
                        .build())
            .getMessage();
    assertTrue(message.startsWith("password"), message);
    assertFalse(message.contains(SECRET), message);
  }

  @Test
  @DisplayName(
      "a server that is down: StoreUnavailableException, nothing written, and no password in any message")
  void downServerNeverLeaksThePassword() {
    String url =
        "jdbc:postgresql://127.0.0.1:"
            + LoopbackPorts.closed()
            + "/test?user=postgres&password="
            + SECRET;
    OrderSnapshot snapshot = new OrderSnapshot("cs_down_1", "esim", 1, null, 100, "usd");
    try (PostgresOrderStore store =
        PostgresOrderStore.builder()
            .jdbcUrl(url)
            .connectionTimeout(Duration.ofMillis(500))
            .clock(new TestClock())
            .build()) {
      assertFalse(store.toString().contains(SECRET), store.toString());

      StoreUnavailableException claim =
          assertThrows(
              StoreUnavailableException.class, () -> store.claim(snapshot, Duration.ofMinutes(2)));
      assertEquals("postgres", claim.backend());
      assertEquals("claim", claim.operation());
      assertFalse(claim.outcomeUnknown(), "no connection, so nothing can have been written");
      assertTrue(claim.getMessage().contains("cs_down_1"), claim.getMessage());
      assertTrue(claim.getMessage().contains("Nothing was written"), claim.getMessage());
      assertTrue(claim.getMessage().contains("127.0.0.1"), claim.getMessage());
      assertNoSecret(claim);

      StoreUnavailableException complete =
          assertThrows(
              StoreUnavailableException.class,
              () ->
                  store.complete(
                      "cs_down_1", new ClaimId(1, ClaimId.newNonce()), new Item("p-1", null)));
      assertFalse(complete.outcomeUnknown(), "a failure before any write leaves nothing written");
      assertNoSecret(complete);
    }
  }

  @Test
  @DisplayName(
      "createSchema against a server that is down fails the build without leaking the password")
  void createSchemaOnDownServer() {
    String url =
        "jdbc:postgresql://127.0.0.1:"
            + LoopbackPorts.closed()
            + "/test?password="
            + SECRET
            + "&user=postgres";
    StoreUnavailableException e = failsToBuild(url, b -> b.password(null).createSchema(true));
    assertEquals("createSchema", e.operation());
    assertNoSecret(e);
  }

  @Test
  @DisplayName(
      "requireServerAtBuild against a server that is down fails the build, not the first call")
  void requireServerAtBuildOnDownServer() {
    String url =
        "jdbc:postgresql://127.0.0.1:"
            + LoopbackPorts.closed()
            + "/test?user=postgres&password="
            + SECRET;
    StoreUnavailableException e = failsToBuild(url, b -> b.requireServerAtBuild(true));
    assertEquals("postgres", e.backend());
    assertFalse(e.outcomeUnknown(), "no connection, so nothing can have been written");
    assertNoSecret(e);
  }

  @Test
  @DisplayName("the SQL names the configured tables, quoted, and nothing else")
  void tableNamesInSql() {
    Sql sql = Sql.forTables("Shop", "Orders", "order");
    assertTrue(sql.lockOrder().contains("FROM \"shop\".\"orders\""), sql.lockOrder());
    assertTrue(sql.insertOrphan().contains("INTO \"shop\".\"order\""), sql.insertOrphan());
    assertTrue(sql.createNamespace().contains("IF NOT EXISTS \"shop\""), sql.createNamespace());
    for (String statement :
        new String[] {
          sql.templates().statement(Migrations.SCRIPTS.get(0).resource("postgres")),
          sql.templates().statement(Migrations.SCRIPTS.get(1).resource("postgres")),
          sql.admin().unreconciledOrphans(),
          sql.admin().failedOrders(),
          sql.selectOrder(),
          sql.lockOrder(),
          sql.insertOrder(),
          sql.updateOrder(),
          sql.insertOrphan(),
          sql.selectOrphans()
        }) {
      assertFalse(statement.contains("fencekit_orders"), statement);
      assertFalse(statement.contains("fencekit_orphans"), statement);
    }
    assertTrue(
        sql.templates()
            .statement(Migrations.SCRIPTS.get(1).resource("postgres"))
            .contains("CREATE INDEX IF NOT EXISTS \"orders_claims\""),
        "an index is named after its table, unqualified");
    Sql defaults = Sql.forTables(null, "fencekit_orders", "fencekit_orphans");
    assertTrue(
        defaults
            .templates()
            .statement(Migrations.SCRIPTS.get(0).resource("postgres"))
            .contains("CREATE TABLE IF NOT EXISTS \"fencekit_orders\" ("));
    assertTrue(
        Sql.shippedScript(Migrations.SCRIPTS.get(0))
            .contains("CREATE TABLE IF NOT EXISTS fencekit_orders ("));
  }

  private static void assertNoSecret(Throwable thrown) {
    for (Throwable t = thrown; t != null; t = t.getCause()) {
      String text = t.toString();
      assertFalse(text.contains(SECRET), () -> "a message leaks the password: " + text);
      for (Throwable suppressed : t.getSuppressed()) {
        assertFalse(suppressed.toString().contains(SECRET), suppressed::toString);
      }
    }
  }
}
