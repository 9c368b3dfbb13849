package org.fencekit.store.postgres;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.sql.DataSource;
import org.fencekit.store.ClaimId;
import org.fencekit.store.ClaimResult;
import org.fencekit.store.Item;
import org.fencekit.store.OrderRecord;
import org.fencekit.store.OrderSnapshot;
import org.fencekit.store.OrderStatus;
import org.fencekit.store.Orphan;
import org.fencekit.store.StoreUnavailableException;
import org.fencekit.store.WriteResult;
import org.fencekit.store.jdbc.Migrations;
import org.fencekit.testsupport.TestPostgres;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * What the TCK cannot see: the schema, table names, the pool, the transaction boundaries and what a
 * failure at each of them means, against a real PostgreSQL (see {@link TestPostgres}); the tests
 * about a transaction's COMMIT or its statements build the store with the fast path off ({@link
 * PostgresFastPathTest} has the fast path's own). Failures are made real: the test terminates the
 * store's backend or commits a competing transaction at a chosen moment.
 */
class PostgresOrderStoreTest extends PostgresStoreTestSupport {

  // ------------------------------------------------------------------ failures, made real

  @Test
  @DisplayName(
      "a connection lost during COMMIT of a write: StoreUnavailableException with the outcome unknown")
  void commitFailureLeavesTheOutcomeUnknown() {
    AtomicBoolean killAtCommit = new AtomicBoolean();
    DataSource dataSource =
        Sabotage.wrap(
            simpleDataSource(),
            new Sabotage.Hooks() {
              @Override
              public void beforeCommit(int pid) throws SQLException {
                if (killAtCommit.getAndSet(false)) {
                  Sabotage.terminate(pid);
                }
              }
            });
    PostgresOrderStore store =
        store(
            PostgresOrderStore.builder()
                .dataSource(dataSource)
                .schema(schema.name())
                .createSchema(true)
                .singleStatementFastPath(false)
                .clock(clock));
    String sid = sid("commit");
    ClaimId claimId = claimed(store, sid);

    killAtCommit.set(true);
    StoreUnavailableException e =
        assertThrows(StoreUnavailableException.class, () -> store.complete(sid, claimId, ITEM));
    assertTrue(e.outcomeUnknown(), e::getMessage);
    assertTrue(e.getMessage().contains("outcome is unknown"), e.getMessage());
    assertEquals("complete", e.operation());

    // The backend died before the COMMIT reached it: nothing landed, and the retry is safe.
    assertEquals(OrderStatus.PENDING, record(store, sid).status());
    assertInstanceOf(WriteResult.Written.class, store.complete(sid, claimId, ITEM));
    assertInstanceOf(WriteResult.Written.class, store.complete(sid, claimId, ITEM), "a replay");

    // A COMMIT of a transaction that wrote nothing (a superseded fail) cannot leave it unknown.
    killAtCommit.set(true);
    ClaimId madeUp = new ClaimId(7, ClaimId.newNonce());
    StoreUnavailableException readOnly =
        assertThrows(StoreUnavailableException.class, () -> store.fail(sid, madeUp, "late"));
    assertFalse(readOnly.outcomeUnknown(), readOnly::getMessage);
  }

  @Test
  @DisplayName("a connection lost before COMMIT: StoreUnavailableException, nothing written")
  void failureBeforeCommitWritesNothing() {
    AtomicBoolean killAtLock = new AtomicBoolean();
    AtomicBoolean killAtUpdate = new AtomicBoolean();
    DataSource dataSource =
        Sabotage.wrap(
            simpleDataSource(),
            new Sabotage.Hooks() {
              @Override
              public void beforePrepare(String sql, int pid) throws SQLException {
                if ((sql.contains("FOR UPDATE") && killAtLock.getAndSet(false))
                    || (sql.contains("UPDATE \"") && killAtUpdate.getAndSet(false))) {
                  Sabotage.terminate(pid);
                }
              }
            });
    PostgresOrderStore store =
        store(
            PostgresOrderStore.builder()
                .dataSource(dataSource)
                .schema(schema.name())
                .createSchema(true)
                .singleStatementFastPath(false)
                .clock(clock));
    String sid = sid("before");
    ClaimId claimId = claimed(store, sid);
    OrderRecord before = record(store, sid);

    killAtLock.set(true);
    StoreUnavailableException atLock =
        assertThrows(
            StoreUnavailableException.class, () -> store.fail(sid, claimId, "provider outage"));
    assertFalse(atLock.outcomeUnknown(), atLock::getMessage);
    assertTrue(atLock.getMessage().contains("Nothing was written"), atLock.getMessage());

    killAtUpdate.set(true);
    StoreUnavailableException afterLock =
        assertThrows(
            StoreUnavailableException.class, () -> store.fail(sid, claimId, "provider outage"));
    assertFalse(
        afterLock.outcomeUnknown(), "an UPDATE that was never committed cannot have landed");

    assertEquals(before, record(store, sid), "nothing was written");
    assertInstanceOf(WriteResult.Written.class, store.fail(sid, claimId, "provider outage"));
  }

  @Test
  @DisplayName(
      "a statement stuck behind another transaction's row lock fails after the query timeout, nothing written")
  void queryTimeout() throws SQLException {
    PostgresOrderStore store = store(pooled().queryTimeout(Duration.ofSeconds(1)));
    String sid = sid("timeout");
    ClaimId claimId = claimed(store, sid);
    try (Connection blocker = TestPostgres.connect()) {
      blocker.setAutoCommit(false);
      try (PreparedStatement lock =
          blocker.prepareStatement(
              "SELECT 1 FROM "
                  + schema.name()
                  + ".fencekit_orders WHERE session_id = ? FOR UPDATE")) {
        lock.setString(1, sid);
        lock.executeQuery().close();
      }
      StoreUnavailableException e =
          assertThrows(StoreUnavailableException.class, () -> store.complete(sid, claimId, ITEM));
      assertFalse(e.outcomeUnknown(), e::getMessage);
      assertTrue(e.getMessage().contains("query timeout"), e.getMessage());
      blocker.rollback();
    }
    assertInstanceOf(WriteResult.Written.class, store.complete(sid, claimId, ITEM));
  }

  @Test
  @DisplayName(
      "a pool with no connection to lend in time: StoreUnavailableException, nothing written")
  void poolExhausted() throws SQLException {
    // 1 s, not HikariCP's least (250 ms): the complete after the held connection is returned may
    // have that connection checked first, which a loaded server can take a while to answer
    PostgresOrderStore store =
        store(pooled().maximumPoolSize(1).connectionTimeout(Duration.ofSeconds(1)));
    String sid = sid("exhausted");
    ClaimId claimId = claimed(store, sid);
    try (Connection held = store.storage().dataSource().getConnection()) {
      StoreUnavailableException e =
          assertThrows(StoreUnavailableException.class, () -> store.complete(sid, claimId, ITEM));
      assertFalse(e.outcomeUnknown(), e::getMessage);
      assertTrue(e.getMessage().contains("connections to spare"), e.getMessage());
      held.rollback();
    }
    assertInstanceOf(WriteResult.Written.class, store.complete(sid, claimId, ITEM));
  }

  // ------------------------------------------------------------------ the creation race

  /**
   * Claim B, a locking transaction, reads "no order" and is held before its INSERT while claim A
   * (the fast path's single statement) creates the order. Under READ COMMITTED, B's INSERT ... ON
   * CONFLICT DO NOTHING inserts nothing and the claim is decided again; under SERIALIZABLE it
   * raises 40001 and the transaction is run again. Either way B must answer InFlight, never a
   * second Claimed or an exception.
   */
  private void creationRace(boolean serializable) throws Exception {
    CountDownLatch paused = new CountDownLatch(1);
    CountDownLatch released = new CountDownLatch(1);
    AtomicBoolean pauseOnce = new AtomicBoolean(true);
    PGSimpleDataSource base = simpleDataSource();
    if (serializable) {
      base.setOptions("-c default_transaction_isolation=serializable");
    }
    DataSource dataSource =
        Sabotage.wrap(
            base,
            new Sabotage.Hooks() {
              @Override
              public void beforePrepare(String sql, int pid) {
                if (sql.contains("INSERT INTO")
                    && sql.contains("_orders")
                    && pauseOnce.getAndSet(false)) {
                  paused.countDown();
                  try {
                    assertTrue(
                        released.await(30, TimeUnit.SECONDS), "the test never released claim B");
                  } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new AssertionError(e);
                  }
                }
              }
            });
    PostgresOrderStore storeA = store(pooled());
    PostgresOrderStore storeB =
        store(
            PostgresOrderStore.builder()
                .dataSource(dataSource)
                .schema(schema.name())
                .singleStatementFastPath(false)
                .clock(clock));
    String sid = sid(serializable ? "race_serializable" : "race_read_committed");

    ExecutorService executor = Executors.newSingleThreadExecutor();
    try {
      Future<ClaimResult> claimB = executor.submit(() -> storeB.claim(snapshot(sid), LEASE));
      assertTrue(paused.await(30, TimeUnit.SECONDS), "claim B never reached its INSERT");
      ClaimId tokenA = claimed(storeA, sid);
      released.countDown();
      ClaimResult resultB = claimB.get(30, TimeUnit.SECONDS);
      assertInstanceOf(ClaimResult.InFlight.class, resultB, () -> "claim B: " + resultB);
      assertEquals(tokenA, resultB.record().claimId(), "B must see A's claim");
      assertEquals(
          serializable ? 1 : 0,
          storeB.storage().retries(),
          "transactions run again after a serialization failure");
    } finally {
      released.countDown();
      executor.shutdownNow();
    }
  }

  @Test
  @DisplayName(
      "two first claims: the one that loses the insert is decided again against the winner's order")
  void creationRaceReadCommitted() throws Exception {
    creationRace(false);
  }

  @Test
  @DisplayName(
      "a serialization failure (40001) on a server running SERIALIZABLE is retried, not surfaced")
  void creationRaceSerializable() throws Exception {
    creationRace(true);
  }

  @Test
  @DisplayName(
      "on a server running SERIALIZABLE, eight first claims of a fresh order at once, 40 times: one Claimed, seven InFlight, none fails (serialization failures are run again)")
  void serializableFirstClaimRaces() throws Exception {
    PostgresOrderStore store = store(serializable().singleStatementFastPath(false));
    int racers = 8;
    ExecutorService executor = Executors.newFixedThreadPool(racers);
    try {
      for (int round = 0; round < 40; round++) {
        String sid = sid("serializable_race");
        CyclicBarrier start = new CyclicBarrier(racers);
        List<Future<ClaimResult>> claims = new ArrayList<>();
        for (int i = 0; i < racers; i++) {
          claims.add(
              executor.submit(
                  () -> {
                    start.await(30, TimeUnit.SECONDS);
                    return store.claim(snapshot(sid), LEASE);
                  }));
        }
        int claimed = 0;
        for (Future<ClaimResult> claim : claims) {
          ClaimResult result = claim.get(60, TimeUnit.SECONDS); // a failed claim throws here
          claimed += result instanceof ClaimResult.Claimed ? 1 : 0;
          assertTrue(
              result instanceof ClaimResult.Claimed || result instanceof ClaimResult.InFlight,
              () -> "round of " + sid + ": " + result);
        }
        assertEquals(1, claimed, "Claimed answers for " + sid);
      }
    } finally {
      executor.shutdownNow();
    }
  }

  /**
   * Another transaction inserts the orphan a stale complete is about to record and, without
   * committing, asks for the order's row lock, which the complete holds while it waits for that
   * orphan: a deadlock. PostgreSQL looks for a deadlock once per lock wait, deadlock_timeout after
   * the wait began, and the backend that finds it is the one aborted (40P01). The store's
   * transaction checks after 5 s, so the other transaction's row lock request (sent as soon as the
   * test sees the complete wait, on a connection opened before) is in place by then even on a
   * loaded machine; with the server's default of 1 s a slow watcher let the store's check find no
   * cycle, and the other transaction, checking after its 30 s, was aborted instead. The store must
   * run its transaction again and answer Superseded.
   */
  @Test
  @DisplayName("a deadlock (40P01) with another transaction is retried, not surfaced")
  void deadlockIsRetried() throws Exception {
    String url = TestPostgres.jdbcUrl();
    PostgresOrderStore store =
        store(
            pooled()
                .jdbcUrl(
                    url + (url.contains("?") ? "&" : "?") + "options=-c%20deadlock_timeout%3D5s"));
    String sid = sid("deadlock");
    ClaimId stale = claimed(store, sid);
    clock.advance(LEASE);
    claimed(store, sid);
    String orders = schema.name() + ".fencekit_orders";
    String orphans = schema.name() + ".fencekit_orphans";
    ExecutorService executor = Executors.newSingleThreadExecutor();
    try (Connection other = TestPostgres.connect();
        Connection watcher = TestPostgres.connect()) {
      other.setAutoCommit(false);
      try (Statement statement = other.createStatement()) {
        statement.execute("SET LOCAL deadlock_timeout = '30s'");
      }
      try (PreparedStatement insert =
          other.prepareStatement(
              "INSERT INTO "
                  + orphans
                  + " (session_id, claim_fence, claim_nonce, provider_order_id, recorded_at) VALUES (?, ?, ?, ?, 0)")) {
        insert.setString(1, sid);
        insert.setLong(2, stale.fence());
        insert.setString(3, stale.nonce());
        insert.setString(4, ITEM.providerOrderId());
        insert.executeUpdate();
      }
      Future<WriteResult> complete = executor.submit(() -> store.complete(sid, stale, ITEM));
      awaitLockWait(watcher, "%INSERT INTO \"" + schema.name() + "\".\"fencekit_orphans\"%");
      try (PreparedStatement lock =
          other.prepareStatement("SELECT 1 FROM " + orders + " WHERE session_id = ? FOR UPDATE")) {
        lock.setString(1, sid);
        lock.executeQuery().close();
      }
      other.commit();
      WriteResult result = complete.get(60, TimeUnit.SECONDS);
      assertInstanceOf(WriteResult.Superseded.class, result);
      // at least once: under load the run again can take the row lock before the other
      // transaction wakes, and deadlock with it a second time, and is then run again once more
      assertTrue(
          store.storage().retries() >= 1,
          "the deadlocked transaction must have run again, ran " + store.storage().retries());
      assertEquals(1, store.orphans(sid).size(), "the orphan is recorded once");
    } finally {
      executor.shutdownNow();
    }
  }

  /** Waits until a statement matching {@code pattern} (SQL LIKE) waits for a lock. */
  static void awaitLockWait(String pattern) throws Exception {
    try (Connection watcher = TestPostgres.connect()) {
      awaitLockWait(watcher, pattern);
    }
  }

  /** {@link #awaitLockWait(String)} on {@code watcher}, a connection the caller opened before. */
  static void awaitLockWait(Connection watcher, String pattern) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    try (PreparedStatement waiting =
        watcher.prepareStatement(
            "SELECT count(*) FROM pg_stat_activity"
                + " WHERE wait_event_type = 'Lock' AND query LIKE ?")) {
      waiting.setString(1, pattern);
      while (true) {
        try (ResultSet rows = waiting.executeQuery()) {
          rows.next();
          if (rows.getInt(1) > 0) {
            return;
          }
        }
        assertTrue(
            System.nanoTime() < deadline, "no statement like " + pattern + " waited for a lock");
        Thread.sleep(20); // polling the server's state, not waiting for a lease
      }
    }
  }

  // ------------------------------------------------------------------ schema and names

  @Test
  @DisplayName("createSchema creates the schema and tables, and running it again changes nothing")
  void createSchemaIsIdempotent() throws SQLException {
    String own = schema.name() + "_idem";
    try {
      PostgresOrderStore first = store(pooled().schema(own));
      String sid = sid("idem");
      ClaimId claimId = claimed(first, sid);
      PostgresOrderStore second = store(pooled().schema(own));
      assertEquals(claimId, record(second, sid).claimId(), "the second build must keep the data");
      assertEquals(
          List.of(
              "fencekit_orders",
              "fencekit_orders_mismatches",
              "fencekit_orders_version",
              "fencekit_orphans"),
          tables(own));
    } finally {
      TestPostgres.execute("DROP SCHEMA IF EXISTS " + own + " CASCADE");
    }
  }

  @Test
  @DisplayName("the shipped migration scripts, run by hand, are the schema the store works on")
  void shippedSchema() throws SQLException {
    String manual = schema.name() + "_manual";
    String created = schema.name() + "_created";
    try {
      try (Connection connection = TestPostgres.connect();
          Statement statement = connection.createStatement()) {
        statement.execute("CREATE SCHEMA " + manual);
        statement.execute("SET search_path TO " + manual);
        for (Migrations.Script script : Migrations.SCRIPTS) {
          statement.execute(Sql.shippedScript(script));
        }
      }
      store(pooled().schema(created)).close();
      assertEquals(columns(created), columns(manual), "the scripts and createSchema must agree");

      PostgresOrderStore store = store(pooled().schema(manual).createSchema(false));
      String sid = sid("manual");
      ClaimId stale = claimed(store, sid);
      clock.advance(LEASE);
      ClaimId fresh = claimed(store, sid);
      assertInstanceOf(WriteResult.Written.class, store.complete(sid, fresh, ITEM));
      assertInstanceOf(
          WriteResult.Superseded.class, store.complete(sid, stale, new Item("prov-2", null)));
      assertEquals(1, store.orphans(sid).size());
    } finally {
      TestPostgres.execute("DROP SCHEMA IF EXISTS " + manual + " CASCADE");
      TestPostgres.execute("DROP SCHEMA IF EXISTS " + created + " CASCADE");
    }
  }

  @Test
  @DisplayName("configured table names are used, even names that are SQL keywords")
  void tableNames() throws SQLException {
    PostgresOrderStore store = store(pooled().ordersTable("Order").orphansTable("user"));
    String sid = sid("names");
    ClaimId stale = claimed(store, sid);
    clock.advance(LEASE);
    ClaimId fresh = claimed(store, sid);
    assertInstanceOf(WriteResult.Written.class, store.fail(sid, fresh, "out of stock"));
    assertInstanceOf(WriteResult.Superseded.class, store.complete(sid, stale, ITEM));
    try (Connection connection = TestPostgres.connect();
        PreparedStatement statement =
            connection.prepareStatement(
                "SELECT"
                    + " (SELECT count(*) FROM "
                    + schema.name()
                    + ".\"order\" WHERE session_id = ?),"
                    + " (SELECT count(*) FROM "
                    + schema.name()
                    + ".\"user\" WHERE session_id = ?)")) {
      statement.setString(1, sid);
      statement.setString(2, sid);
      try (ResultSet rows = statement.executeQuery()) {
        rows.next();
        assertEquals(1, rows.getInt(1), "the order row must be in table \"order\"");
        assertEquals(1, rows.getInt(2), "the orphan row must be in table \"user\"");
      }
    }
  }

  @Test
  @DisplayName(
      "a user with only SELECT, INSERT and UPDATE on the tables runs the store; createSchema needs more")
  void leastPrivilege() {
    store(pooled()).close(); // the tables exist
    String role = "fencekit_app_" + ClaimId.newNonce().substring(0, 10);
    String password = ClaimId.newNonce();
    TestPostgres.execute("CREATE ROLE " + role + " LOGIN PASSWORD '" + password + "'");
    try {
      TestPostgres.execute("GRANT USAGE ON SCHEMA " + schema.name() + " TO " + role);
      TestPostgres.execute(
          "GRANT SELECT, INSERT, UPDATE ON "
              + schema.name()
              + ".fencekit_orders, "
              + schema.name()
              + ".fencekit_orphans TO "
              + role);
      TestPostgres.execute(
          "GRANT SELECT ON " + schema.name() + ".fencekit_orders_version TO " + role);
      String url = asUser(TestPostgres.jdbcUrl(), role, password);

      try (PostgresOrderStore store = pooled().jdbcUrl(url).createSchema(false).build()) {
        String sid = sid("least");
        ClaimId stale = claimed(store, sid);
        clock.advance(LEASE);
        ClaimId fresh = claimed(store, sid);
        assertInstanceOf(WriteResult.Written.class, store.extend(sid, fresh, LEASE));
        assertInstanceOf(WriteResult.Superseded.class, store.complete(sid, stale, ITEM));
        assertInstanceOf(WriteResult.Written.class, store.fail(sid, fresh, "out of stock"));
        assertEquals(1, store.orphans(sid).size());
      }

      StoreUnavailableException e =
          assertThrows(StoreUnavailableException.class, () -> pooled().jdbcUrl(url).build());
      assertTrue(e.getMessage().contains("42501"), e.getMessage());
      assertTrue(e.getMessage().contains("leave it off"), e.getMessage());
      assertFalse(e.getMessage().contains(password), "the password must not appear");
    } finally {
      TestPostgres.execute("DROP OWNED BY " + role);
      TestPostgres.execute("DROP ROLE " + role);
    }
  }

  /** {@code url} with its user and password replaced. */
  private static String asUser(String url, String user, String password) {
    int query = url.indexOf('?');
    StringBuilder out =
        new StringBuilder(query < 0 ? url : url.substring(0, query))
            .append("?user=")
            .append(user)
            .append("&password=")
            .append(password);
    if (query >= 0) {
      for (String parameter : url.substring(query + 1).split("&")) {
        if (!parameter.startsWith("user=")
            && !parameter.startsWith("password=")
            && !parameter.isEmpty()) {
          out.append('&').append(parameter);
        }
      }
    }
    return out.toString();
  }

  // ------------------------------------------------------------------ values

  @Test
  @DisplayName(
      "records round-trip exactly, to the millisecond, and hostile strings travel as bound values")
  void roundTrip() {
    clock.set(Instant.parse("2026-09-14T12:00:00.123456789Z"));
    PostgresOrderStore store = store(pooled());
    String sid =
        "cs_'); DROP TABLE fencekit_orders; -- \u00e9\uD83D\uDE00 " + ORDERS.incrementAndGet();
    OrderSnapshot snapshot =
        new OrderSnapshot(sid, "esim \"eu\" 5gb", 3, "o'brien@example.com", 0, "EUR");
    ClaimResult claim = store.claim(snapshot, Duration.ofMillis(1500));
    assertInstanceOf(ClaimResult.Claimed.class, claim);
    assertEquals(Instant.parse("2026-09-14T12:00:00.123Z"), claim.record().claimedAt());
    assertEquals(claim.record(), record(store, sid), "get must return exactly what claim wrote");

    ClaimId stale = ((ClaimResult.Claimed) claim).claimId();
    clock.advance(Duration.ofMillis(1500));
    ClaimId fresh = ((ClaimResult.Claimed) store.claim(snapshot, LEASE)).claimId();
    Item item = new Item("prov '1'", "line 1\nline 2\t\u00fc '; SELECT 1; --");
    WriteResult written = store.complete(sid, fresh, item);
    assertEquals(written.record(), record(store, sid));
    assertEquals(item, record(store, sid).item());

    clock.advance(Duration.ofMillis(7));
    store.complete(sid, stale, new Item("prov '2'", null));
    List<Orphan> orphans = store.orphans(sid);
    assertEquals(
        List.of(
            new Orphan(
                sid, stale, new Item("prov '2'", null), Instant.parse("2026-09-14T12:00:01.630Z"))),
        orphans);
  }

  // ------------------------------------------------------------------ pools

  @Test
  @DisplayName(
      "the user's DataSource stays open after close, and gets its connections back as lent")
  void userDataSource() throws SQLException {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(TestPostgres.jdbcUrl());
    config.setMaximumPoolSize(2);
    config.setAutoCommit(true);
    try (HikariDataSource pool = new HikariDataSource(config)) {
      PostgresOrderStore store =
          PostgresOrderStore.builder()
              .dataSource(pool)
              .schema(schema.name())
              .createSchema(true)
              .clock(clock)
              .build();
      String sid = sid("user_ds");
      ClaimId claimId = claimed(store, sid);
      assertInstanceOf(WriteResult.Written.class, store.complete(sid, claimId, ITEM));
      store.close();
      assertFalse(pool.isClosed(), "the store must not close a DataSource it was given");
      assertEquals(
          0, pool.getHikariPoolMXBean().getActiveConnections(), "every connection returned");
      try (Connection connection = pool.getConnection()) {
        assertTrue(connection.getAutoCommit(), "auto-commit as the pool lent it");
      }
    }
  }

  @Test
  @DisplayName(
      "a pool built from a URL: server-side prepared statements at the driver's default, none with pgBouncerBefore121(true)")
  void preparedStatements() throws SQLException {
    PostgresOrderStore plain = store(pooled().maximumPoolSize(1));
    PostgresOrderStore bouncer = store(pooled().maximumPoolSize(1).pgBouncerBefore121(true));
    String sid = sid("prepared");
    for (PostgresOrderStore each : List.of(plain, bouncer)) {
      for (int i = 0; i < 8; i++) {
        each.get(sid);
      }
    }
    try (Connection connection = ((HikariDataSource) plain.storage().dataSource()).getConnection();
        Statement statement = connection.createStatement();
        ResultSet rows = statement.executeQuery("SELECT count(*) FROM pg_prepared_statements")) {
      assertEquals(5, connection.unwrap(PGConnection.class).getPrepareThreshold());
      rows.next();
      assertTrue(rows.getInt(1) > 0, "a statement used 8 times is prepared on the server");
      connection.commit();
    }
    try (Connection connection =
            ((HikariDataSource) bouncer.storage().dataSource()).getConnection();
        Statement statement = connection.createStatement();
        ResultSet rows = statement.executeQuery("SELECT count(*) FROM pg_prepared_statements")) {
      assertEquals(0, connection.unwrap(PGConnection.class).getPrepareThreshold());
      rows.next();
      assertEquals(
          0, rows.getInt(1), "PgBouncer before 1.21 cannot follow named prepared statements");
      connection.commit();
    }
  }

  @Test
  @DisplayName(
      "a pool built from a URL: no password in its URL, the URL's driver settings win, closed with the store")
  void ownedPool() throws SQLException {
    PostgresOrderStore store = store(pooled().maximumPoolSize(1));
    String sid = sid("owned");
    store.get(sid);
    HikariDataSource pool = (HikariDataSource) store.storage().dataSource();
    store.close();
    assertTrue(pool.isClosed(), "the store must close the pool it built");
    assertThrows(IllegalStateException.class, () -> store.get(sid));

    String url = TestPostgres.jdbcUrl();
    String withPassword =
        url + (url.contains("?") ? "&" : "?") + "prepareThreshold=3&password=ignored-by-trust";
    PostgresOrderStore tuned =
        store(
            PostgresOrderStore.builder()
                .jdbcUrl(withPassword)
                .pgBouncerBefore121(true)
                .maximumPoolSize(1)
                .schema(schema.name())
                .createSchema(true)
                .clock(clock));
    HikariDataSource tunedPool = (HikariDataSource) tuned.storage().dataSource();
    assertFalse(
        tunedPool.getJdbcUrl().contains("password"),
        "the driver is given the password as a property");
    try (Connection connection = tunedPool.getConnection()) {
      assertEquals(
          3,
          connection.unwrap(PGConnection.class).getPrepareThreshold(),
          "the URL's setting wins over pgBouncerBefore121");
      connection.rollback();
    }
  }

  private static List<String> tables(String schemaName) throws SQLException {
    List<String> names = new ArrayList<>();
    try (Connection connection = TestPostgres.connect();
        PreparedStatement statement =
            connection.prepareStatement(
                "SELECT table_name FROM information_schema.tables WHERE table_schema = ? ORDER BY 1")) {
      statement.setString(1, schemaName);
      try (ResultSet rows = statement.executeQuery()) {
        while (rows.next()) {
          names.add(rows.getString(1));
        }
      }
    }
    return names;
  }

  private static List<String> columns(String schemaName) throws SQLException {
    List<String> columns = new ArrayList<>();
    try (Connection connection = TestPostgres.connect();
        PreparedStatement statement =
            connection.prepareStatement(
                "SELECT table_name, column_name, data_type, is_nullable, is_identity"
                    + " FROM information_schema.columns WHERE table_schema = ? ORDER BY 1, ordinal_position")) {
      statement.setString(1, schemaName);
      try (ResultSet rows = statement.executeQuery()) {
        while (rows.next()) {
          columns.add(
              rows.getString(1)
                  + "."
                  + rows.getString(2)
                  + " "
                  + rows.getString(3)
                  + " null="
                  + rows.getString(4)
                  + " identity="
                  + rows.getString(5));
        }
      }
    }
    assertFalse(columns.isEmpty(), "no columns in schema " + schemaName);
    return columns;
  }
}
