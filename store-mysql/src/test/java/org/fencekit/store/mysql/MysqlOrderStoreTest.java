package org.fencekit.store.mysql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.fencekit.store.ClaimId;
import org.fencekit.store.ClaimResult;
import org.fencekit.store.Item;
import org.fencekit.store.OrderSnapshot;
import org.fencekit.store.StoreUnavailableException;
import org.fencekit.store.WriteResult;
import org.fencekit.testsupport.LoopbackPorts;
import org.fencekit.testsupport.TestMysql;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** What MySQL needs beyond the TCK: its collations, its races, its errors, its builder. */
class MysqlOrderStoreTest extends MysqlStoreTestSupport {

  @Test
  @DisplayName(
      "session ids that differ in case, a trailing space or an accent are different orders (the server's default collation would make them one)")
  void idsCompareByteForByte() {
    MysqlOrderStore store = store(pooled());
    String base = sid("Case");
    List<String> ids = List.of(base, base.toLowerCase(), base + " ", base + "\u00e9", base + "e");
    for (String id : ids) {
      ClaimResult result = store.claim(snapshot(id), LEASE);
      assertInstanceOf(ClaimResult.Claimed.class, result, () -> "'" + id + "': " + result);
      assertEquals(1, ((ClaimResult.Claimed) result).claimId().fence(), id);
    }
    for (String id : ids) {
      assertEquals(id, record(store, id).sessionId());
    }
  }

  @Test
  @DisplayName(
      "the pool the store builds runs at READ COMMITTED, so a locking read of a missing order takes no gap lock")
  void ownPoolIsReadCommitted() throws Exception {
    MysqlOrderStore store = store(pooled());
    try (Connection connection = store.storage().dataSource().getConnection()) {
      String isolation;
      try (ResultSet rows =
          connection.createStatement().executeQuery("SELECT @@session.tx_isolation")) {
        rows.next();
        isolation = rows.getString(1);
      } catch (java.sql.SQLException mysql8) { // MySQL 8 renamed it; MariaDB 10.11 has only this
        try (ResultSet rows =
            connection.createStatement().executeQuery("SELECT @@session.transaction_isolation")) {
          rows.next();
          isolation = rows.getString(1);
        }
      }
      assertEquals("READ-COMMITTED", isolation);
    }
  }

  @Test
  @DisplayName("text outside the Basic Multilingual Plane round-trips in every column")
  void supplementaryCharactersRoundTrip() {
    MysqlOrderStore store = store(pooled());
    String id = sid("emoji") + "\uD83D\uDE00";
    OrderSnapshot snapshot =
        new OrderSnapshot(id, "esim-\uD83C\uDF0D", 1, "\uD83D\uDCE7@example.com", 1999, "usd");
    ClaimId claimId = ((ClaimResult.Claimed) store.claim(snapshot, LEASE)).claimId();
    Item item = new Item("prov-\uD83D\uDE80", "LPA:1$\uD83D\uDD11$" + "x".repeat(60_000));
    assertInstanceOf(WriteResult.Written.class, store.complete(id, claimId, item));
    assertEquals(snapshot, record(store, id).snapshot());
    assertEquals(item, record(store, id).item());
    ClaimId stale = new ClaimId(claimId.fence(), ClaimId.newNonce());
    store.complete(id, stale, new Item("prov-\uD83D\uDC7B", "\uD83D\uDC7B"));
    assertEquals("prov-\uD83D\uDC7B", store.orphans(id).get(0).item().providerOrderId());
  }

  @ParameterizedTest(name = "fast path {0}")
  @ValueSource(booleans = {true, false})
  @DisplayName(
      "eight first claims of one fresh order at once: exactly one is Claimed, the rest InFlight, none fails")
  void firstClaimRace(boolean fastPath) throws Exception {
    MysqlOrderStore store = store(pooled().maximumPoolSize(8).singleStatementFastPath(fastPath));
    for (int round = 0; round < 10; round++) {
      List<ClaimResult> results = race(store, sid("race"), 8);
      assertEquals(1, results.stream().filter(ClaimResult.Claimed.class::isInstance).count());
      assertEquals(7, results.stream().filter(ClaimResult.InFlight.class::isInstance).count());
    }
  }

  @Test
  @DisplayName(
      "over a user's pool left at REPEATABLE READ (the server default) the store's transactions run at READ COMMITTED: racing first claims take no gap lock and never deadlock")
  void repeatableReadPoolRunsReadCommitted() throws Exception {
    try (HikariDataSource pool = new HikariDataSource()) {
      pool.setJdbcUrl(database.jdbcUrl());
      pool.setMaximumPoolSize(8);
      MysqlOrderStore store =
          store(
              MysqlOrderStore.builder()
                  .dataSource(pool)
                  .createSchema(true)
                  .singleStatementFastPath(false)
                  .clock(clock));
      for (int round = 0; round < 40; round++) {
        List<ClaimResult> results = race(store, sid("rr"), 4);
        assertEquals(1, results.stream().filter(ClaimResult.Claimed.class::isInstance).count());
      }
      assertEquals(
          0,
          store.storage().retries(),
          "first claims racing in 40 rounds of four deadlocked and ran again: a gap lock was taken");
      try (Connection connection = pool.getConnection()) {
        assertEquals(
            Connection.TRANSACTION_REPEATABLE_READ,
            connection.getTransactionIsolation(),
            "the store left its isolation on the user's connections");
      }
    }
  }

  /** {@code callers} claims of {@code sessionId} started together; their results. */
  private static List<ClaimResult> race(MysqlOrderStore store, String sessionId, int callers)
      throws Exception {
    return atOnce(
        callers, () -> store.claim(snapshot(sessionId), LEASE), "every claim must return");
  }

  @Test
  @DisplayName(
      "a lock wait timeout (1205) behind another transaction's row lock is run again, and the write lands once the lock is gone")
  void lockWaitTimeoutIsRunAgain() throws Exception {
    try (HikariDataSource pool = new HikariDataSource()) {
      pool.setJdbcUrl(database.jdbcUrl());
      pool.setMaximumPoolSize(2);
      pool.setTransactionIsolation("TRANSACTION_READ_COMMITTED");
      pool.setConnectionInitSql("SET SESSION innodb_lock_wait_timeout = 1");
      // locking transactions only: on the fast path a 1205 makes the statement a miss, and the
      // transaction after it finds the lock gone
      MysqlOrderStore store =
          store(
              MysqlOrderStore.builder()
                  .dataSource(pool)
                  .createSchema(true)
                  .singleStatementFastPath(false)
                  .clock(clock));
      String id = sid("wait");
      ClaimId claimId = claimed(store, id);
      ExecutorService executor = Executors.newSingleThreadExecutor();
      try (Connection holder = TestMysql.connect(database.jdbcUrl())) {
        holder.setAutoCommit(false);
        try (PreparedStatement lock =
            holder.prepareStatement(
                "SELECT fence FROM fencekit_orders WHERE session_id = ? FOR UPDATE")) {
          lock.setString(1, id);
          try (ResultSet rows = lock.executeQuery()) {
            rows.next();
          }
        }
        Future<WriteResult> complete = executor.submit(() -> store.complete(id, claimId, ITEM));
        // the row lock is held until the store has met a lock wait timeout and run again, however
        // long the complete takes to reach it (a fixed hold let a slow start miss the timeout)
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (store.storage().retries() < 1 && !complete.isDone()) {
          assertTrue(System.nanoTime() < deadline, "the complete never ran again");
          Thread.sleep(10); // polling the store's counter, not waiting for the timeout
        }
        holder.rollback();
        WriteResult result = complete.get(60, TimeUnit.SECONDS);
        assertInstanceOf(WriteResult.Written.class, result);
        assertTrue(store.storage().retries() >= 1, "retries " + store.storage().retries());
      } finally {
        executor.shutdownNow();
      }
      assertEquals(ITEM, record(store, id).item());
    }
  }

  @Test
  @DisplayName(
      "a password in the URL, as a parameter or user info, never appears in a failure's message")
  void passwordsNeverInMessages() {
    int closed = LoopbackPorts.closed(); // a port nobody serves
    for (String url :
        List.of(
            "jdbc:mysql://127.0.0.1:" + closed + "/test?user=root&password=s3cret-pw",
            "jdbc:mysql://root:s3cret-pw@127.0.0.1:" + closed + "/test",
            "jdbc:mariadb://127.0.0.1:" + closed + "/test?password=s3cret-pw&user=root")) {
      RuntimeException e =
          assertThrows(
              RuntimeException.class,
              () ->
                  MysqlOrderStore.builder()
                      .jdbcUrl(url)
                      .createSchema(true)
                      .connectionTimeout(java.time.Duration.ofMillis(500))
                      .build());
      String text = e.toString() + (e.getCause() == null ? "" : e.getCause().toString());
      assertInstanceOf(StoreUnavailableException.class, e, text);
      assertFalse(text.contains("s3cret-pw"), text);
      assertTrue(text.contains("check that MySQL is up"), text);
    }
  }

  @Test
  @DisplayName(
      "requireServerAtBuild against a server that is down fails the build; without it, the first"
          + " call")
  void requireServerAtBuildOnDownServer() {
    String url = "jdbc:mysql://127.0.0.1:" + LoopbackPorts.closed() + "/test?user=root";
    StoreUnavailableException atBuild =
        assertThrows(
            StoreUnavailableException.class,
            () ->
                MysqlOrderStore.builder()
                    .jdbcUrl(url)
                    .connectionTimeout(java.time.Duration.ofMillis(500))
                    .requireServerAtBuild(true)
                    .build());
    assertTrue(atBuild.getMessage().contains("check that MySQL is up"), atBuild.getMessage());
    try (MysqlOrderStore store =
        MysqlOrderStore.builder()
            .jdbcUrl(url)
            .connectionTimeout(java.time.Duration.ofMillis(500))
            .build()) {
      assertThrows(StoreUnavailableException.class, () -> store.get("cs_down"));
    }
  }

  @Test
  @DisplayName("a jdbc:mariadb: URL reaches the same server through MySQL Connector/J")
  void mariadbUrl() {
    String url = "jdbc:mariadb:" + database.jdbcUrl().substring("jdbc:mysql:".length());
    MysqlOrderStore store = store(pooled().jdbcUrl(url));
    String id = sid("mariadb");
    claimed(store, id);
    assertTrue(store.toString().contains("jdbc:mariadb:"), store.toString());
  }

  @Test
  @DisplayName("the builder names the property at fault, before anything is sent")
  void builderRefusals() {
    IllegalArgumentException url =
        assertThrows(
            IllegalArgumentException.class,
            () -> MysqlOrderStore.builder().jdbcUrl("jdbc:postgresql://h/db").build());
    assertTrue(
        url.getMessage().contains("must start with 'jdbc:mysql:' or 'jdbc:mariadb:'"),
        url.getMessage());
    IllegalArgumentException both =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                MysqlOrderStore.builder()
                    .dataSource(new com.mysql.cj.jdbc.MysqlDataSource())
                    .maximumPoolSize(3)
                    .build());
    assertTrue(
        both.getMessage().startsWith("maximumPoolSize configures a pool"), both.getMessage());
    IllegalArgumentException none =
        assertThrows(IllegalArgumentException.class, () -> MysqlOrderStore.builder().build());
    assertTrue(none.getMessage().contains("jdbc:mysql://localhost:3306/mydb"), none.getMessage());
    IllegalArgumentException tables =
        assertThrows(
            IllegalArgumentException.class,
            () -> pooled().ordersTable("Orders").orphansTable("orders").build());
    assertTrue(tables.getMessage().contains("must differ"), tables.getMessage());
    assertThrows(
        IllegalArgumentException.class, () -> pooled().ordersTable("orders`; drop").build());
  }

  @Test
  @DisplayName("tables of other names live beside the default ones, each with its own version")
  void otherTableNames() {
    MysqlOrderStore plain = store(pooled());
    MysqlOrderStore other = store(pooled().ordersTable("shop_orders").orphansTable("shop_orphans"));
    String id = sid("names");
    claimed(plain, id);
    assertTrue(other.get(id).isEmpty(), "another table, another order");
    claimed(other, id);
    assertTrue(other.toString().contains("orders shop_orders"), other.toString());
  }
}
