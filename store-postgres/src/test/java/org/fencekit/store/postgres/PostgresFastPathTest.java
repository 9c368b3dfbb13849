package org.fencekit.store.postgres;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.Callable;
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
import org.fencekit.store.UnknownOrderException;
import org.fencekit.store.WriteResult;
import org.fencekit.store.jdbc.JdbcStorage;
import org.fencekit.store.spi.ClaimRequest;
import org.fencekit.store.spi.Credentials;
import org.fencekit.store.spi.WriteRequest;
import org.fencekit.tck.TestClock;
import org.fencekit.testsupport.TestPostgres;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The single-statement fast path against a real PostgreSQL (see {@link TestPostgres}): that it
 * decides the common cases in one auto-commit statement (watched through a DataSource that logs
 * what the store does with each connection), that every other case misses and the locking
 * transaction decides it, that a user's connections go back as lent, what a failure at the
 * statement means, and races of fast statements against each other and against locking transactions
 * across pools.
 */
class PostgresFastPathTest extends PostgresStoreTestSupport {

  /** Hits and misses of every operation, as one comparable string. */
  private static String counts(PostgresOrderStore store) {
    FastPath fast = store.fastPath();
    StringBuilder text = new StringBuilder();
    for (String operation : List.of("claim", "complete", "fail", "extend")) {
      text.append(operation)
          .append(' ')
          .append(fast.hits(operation))
          .append('/')
          .append(fast.misses(operation))
          .append(' ');
    }
    return text.toString().trim();
  }

  // ------------------------------------------------------------------ one statement decides

  /**
   * What the store does with each connection it borrows: every statement prepared (its first words,
   * and whether auto-commit was on), every commit and rollback.
   */
  private static final class ConnectionLog {
    final List<String> events = Collections.synchronizedList(new ArrayList<>());

    /** Each driver query timeout the store set: the statement's name and the seconds. */
    final List<String> timeouts = Collections.synchronizedList(new ArrayList<>());

    DataSource wrap(DataSource real) {
      return (DataSource)
          Proxy.newProxyInstance(
              getClass().getClassLoader(),
              new Class<?>[] {DataSource.class},
              (proxy, method, args) -> {
                Object result = call(real, method, args);
                return result instanceof Connection ? connection((Connection) result) : result;
              });
    }

    List<String> take() {
      synchronized (events) {
        List<String> copy = List.copyOf(events);
        events.clear();
        return copy;
      }
    }

    private Connection connection(Connection real) {
      return (Connection)
          Proxy.newProxyInstance(
              getClass().getClassLoader(),
              new Class<?>[] {Connection.class},
              (proxy, method, args) -> {
                switch (method.getName()) {
                  case "prepareStatement" -> {
                    events.add(
                        statement((String) args[0])
                            + (real.getAutoCommit() ? " autocommit" : " in transaction"));
                    return statement(
                        statement((String) args[0]), (PreparedStatement) call(real, method, args));
                  }
                  case "commit", "rollback" -> events.add(method.getName());
                  default -> {}
                }
                return call(real, method, args);
              });
    }

    private PreparedStatement statement(String name, PreparedStatement real) {
      return (PreparedStatement)
          Proxy.newProxyInstance(
              getClass().getClassLoader(),
              new Class<?>[] {PreparedStatement.class},
              (proxy, method, args) -> {
                if (method.getName().equals("setQueryTimeout")) {
                  timeouts.add(name + " " + args[0] + " s");
                }
                return call(real, method, args);
              });
    }

    /** The statement's resource name, recognised by its text. */
    private static String statement(String sql) {
      if (sql.contains("FOR UPDATE")) {
        return "lock-order";
      } else if (sql.contains("INSERT INTO") && sql.contains("_orders")) {
        return "insert-order";
      } else if (sql.contains("SET status = 'PROVISIONED'")) {
        return sql.contains("RETURNING") ? "complete-fast" : "complete-alone";
      } else if (sql.contains("SET status = 'FAILED'")) {
        return "fail-fast";
      } else if (sql.contains("SET status = 'PENDING'")) {
        return "reclaim-fast";
      } else if (sql.startsWith("SELECT") && sql.contains("_orders")) {
        return "select-order";
      } else if (sql.contains("SET lease_expires_at = ?")) {
        return "extend-fast";
      } else if (sql.contains("INSERT INTO") && sql.contains("_orphans")) {
        return "insert-orphan";
      } else if (sql.startsWith("UPDATE") && sql.contains("_orders")) {
        return "update-order";
      }
      return sql.substring(0, Math.min(40, sql.length()));
    }

    private static Object call(Object target, Method method, Object[] args) throws Throwable {
      try {
        return method.invoke(target, args);
      } catch (InvocationTargetException e) {
        throw e.getCause();
      }
    }
  }

  @Test
  @DisplayName(
      "the single statements set no driver query timeout (a timer task each): the store's own deadline thread cancels them")
  void singleStatementsLeaveTheTimeoutToTheStore() {
    ConnectionLog log = new ConnectionLog();
    PostgresOrderStore store = logged(log, true);
    String sid = sid("deadlines");
    log.take();
    log.timeouts.clear();
    ClaimId claimId = claimed(store, sid);
    assertInstanceOf(WriteResult.Written.class, store.extend(sid, claimId, LEASE));
    assertInstanceOf(WriteResult.Written.class, store.complete(sid, claimId, ITEM));
    assertEquals(
        List.of("insert-order autocommit", "extend-fast autocommit", "complete-alone autocommit"),
        log.take());
    assertEquals(List.of(), log.timeouts);
  }

  @Test
  @DisplayName(
      "a complete of a claim this store granted sends its update alone, nothing returned, and"
          + " answers the order exactly as written; one of another store's claim has the row"
          + " returned and decided again; a complete after its claim's fail is not answered from"
          + " the claim")
  void ownClaimsCompleteWithNothingReturned() {
    ConnectionLog log = new ConnectionLog();
    PostgresOrderStore store = logged(log, true);
    PostgresOrderStore other = logged(new ConnectionLog(), true);

    String own = sid("own");
    ClaimId ownClaim = claimed(store, own);
    log.take();
    WriteResult completed = store.complete(own, ownClaim, ITEM);
    assertInstanceOf(WriteResult.Written.class, completed);
    assertEquals(List.of("complete-alone autocommit"), log.take());
    assertEquals(completed.record(), record(store, own), "the answer is the order as written");

    String foreign = sid("foreign");
    ClaimId foreignClaim = claimed(other, foreign);
    log.take();
    WriteResult done = store.complete(foreign, foreignClaim, ITEM);
    assertInstanceOf(WriteResult.Written.class, done);
    assertEquals(List.of("complete-fast autocommit"), log.take());
    assertEquals(done.record(), record(store, foreign));

    String failed = sid("failed");
    ClaimId failedClaim = claimed(store, failed);
    assertInstanceOf(WriteResult.Written.class, store.fail(failed, failedClaim, "provider down"));
    log.take();
    WriteResult late = store.complete(failed, failedClaim, ITEM);
    assertInstanceOf(WriteResult.Superseded.class, late, "the claim ended with its fail");
    assertEquals(OrderStatus.FAILED, record(store, failed).status());
    assertEquals("complete-fast autocommit", log.take().get(0), "not answered from the claim");
  }

  @Test
  @DisplayName(
      "a first claim, a re-claim and the owner's complete, fail and extend are each one auto-commit statement, no BEGIN or COMMIT; a refused claim is the re-claim that wrote nothing and returned the order")
  void commonCasesAreSingleStatements() {
    ConnectionLog log = new ConnectionLog();
    PostgresOrderStore store = logged(log, true);
    String sid = sid("common");
    log.take();

    ClaimId first = claimed(store, sid);
    assertEquals(List.of("insert-order autocommit"), log.take(), "a first claim is one insert");
    assertInstanceOf(WriteResult.Written.class, store.extend(sid, first, LEASE));
    assertEquals(List.of("extend-fast autocommit"), log.take());
    WriteResult failed = store.fail(sid, first, "provider outage");
    assertInstanceOf(WriteResult.Written.class, failed);
    assertEquals(List.of("fail-fast autocommit"), log.take());
    assertEquals(failed.record(), record(store, sid), "fail returns exactly what it wrote");
    log.take();

    ClaimResult again = store.claim(snapshot(sid), LEASE);
    assertInstanceOf(ClaimResult.Claimed.class, again);
    assertEquals(
        List.of("insert-order autocommit", "reclaim-fast autocommit"),
        log.take(),
        "a re-claim is the insert that finds the order, then the conditional re-claim");
    assertEquals(again.record(), record(store, sid), "the re-claim returns exactly what it wrote");
    assertEquals(2, again.record().fence());
    assertEquals("provider outage", again.record().lastError(), "the last error is kept");
    log.take();

    ClaimId second = ((ClaimResult.Claimed) again).claimId();
    WriteResult completed = store.complete(sid, second, ITEM);
    assertInstanceOf(WriteResult.Written.class, completed);
    assertEquals(List.of("complete-alone autocommit"), log.take());
    assertEquals(completed.record(), record(store, sid));
    assertEquals(second, completed.record().settledBy());
    log.take();

    assertInstanceOf(ClaimResult.Provisioned.class, store.claim(snapshot(sid), LEASE));
    assertEquals(
        List.of("reclaim-fast autocommit"),
        log.take(),
        "an order whose insert missed before is known to exist: no insert for it again; the"
            + " re-claim writes nothing and the order it returns, read without its lock, answers"
            + " Provisioned");
    assertEquals("claim 3/0 complete 1/0 fail 1/0 extend 1/0", counts(store));
  }

  @Test
  @DisplayName(
      "a re-claim that read the order claimable but found it taken by a rival's claim committed"
          + " meanwhile re-claims once more, is answered InFlight from the rival's lease, and sends"
          + " no locking transaction")
  void reclaimBeatenByARivalTriesOnceMore() throws Exception {
    ConnectionLog log = new ConnectionLog();
    PostgresOrderStore store = logged(log, true);
    String sid = sid("beaten");
    ClaimId first = claimed(store, sid);
    assertInstanceOf(WriteResult.Written.class, store.fail(sid, first, "provider down"));
    ClaimId second = claimed(store, sid); // its insert misses: the order is known to exist now
    assertInstanceOf(WriteResult.Written.class, store.fail(sid, second, "again"));
    String orders = schema.name() + ".fencekit_orders";
    ExecutorService executor = Executors.newSingleThreadExecutor();
    try (Connection rival = TestPostgres.connect()) {
      rival.setAutoCommit(false);
      long now = clock.millis();
      try (PreparedStatement claim =
          rival.prepareStatement(
              "UPDATE "
                  + orders
                  + " SET status = 'PENDING', fence = fence + 1, claim_nonce = ?, claimed_at = ?,"
                  + " lease_expires_at = ?, updated_at = ? WHERE session_id = ?")) {
        claim.setString(1, ClaimId.newNonce());
        claim.setLong(2, now);
        claim.setLong(3, now + LEASE.toMillis());
        claim.setLong(4, now);
        claim.setString(5, sid);
        assertEquals(1, claim.executeUpdate());
      }
      log.take();
      Future<ClaimResult> claim = executor.submit(() -> store.claim(snapshot(sid), LEASE));
      // the re-claim's snapshot shows the order failed; its update waits for the rival's row lock
      PostgresOrderStoreTest.awaitLockWait(
          "%\"" + schema.name() + "\".\"fencekit_orders\" AS o%SET status = 'PENDING'%");
      rival.commit();
      ClaimResult result = claim.get(60, TimeUnit.SECONDS);
      assertInstanceOf(ClaimResult.InFlight.class, result, "the rival's lease is live");
      assertEquals(3, result.record().fence(), "the rival's claim, the order's third");
      assertEquals(
          List.of("reclaim-fast autocommit", "reclaim-fast autocommit"),
          log.take(),
          "the first re-claim read the order failed and found it taken; the second read the"
              + " rival's claim");
      assertEquals(0, store.fastPath().misses("claim"), "no locking transaction");
    } finally {
      executor.shutdownNow();
    }
  }

  @Test
  @DisplayName("with the fast path off, every claim and settle is one locking transaction")
  void lockingOnly() {
    ConnectionLog log = new ConnectionLog();
    PostgresOrderStore store = logged(log, false);
    assertNull(store.fastPath());
    String sid = sid("locking");
    log.take();
    log.timeouts.clear();
    ClaimId claimId = claimed(store, sid);
    assertEquals(
        List.of("lock-order in transaction", "insert-order in transaction", "commit"), log.take());
    assertInstanceOf(WriteResult.Written.class, store.complete(sid, claimId, ITEM));
    assertEquals(
        List.of("lock-order in transaction", "update-order in transaction", "commit"), log.take());
    assertEquals(
        List.of("lock-order 30 s", "insert-order 30 s", "lock-order 30 s", "update-order 30 s"),
        log.timeouts,
        "a locking transaction's statements keep the driver's query timeout");
  }

  /** A store on {@code log}'s view of a DataSource without a pool, its schema created. */
  private PostgresOrderStore logged(ConnectionLog log, boolean fastPath) {
    return store(
        PostgresOrderStore.builder()
            .dataSource(log.wrap(simpleDataSource()))
            .schema(schema.name())
            .createSchema(true)
            .singleStatementFastPath(fastPath)
            .clock(clock));
  }

  // ------------------------------------------------------------------ every miss falls back

  @Test
  @DisplayName(
      "a claim on an order in flight or provisioned is refused by the re-claim's WHERE and answered from the order read without its lock: InFlight, then Provisioned")
  void claimMisses() {
    PostgresOrderStore store = store(pooled());
    String sid = sid("claim_miss");
    ClaimId claimId = claimed(store, sid);
    OrderRecord held = record(store, sid);

    ClaimResult busy = store.claim(snapshot(sid), LEASE);
    assertInstanceOf(ClaimResult.InFlight.class, busy);
    assertEquals(held, busy.record(), "InFlight shows the order as it is, untouched");
    assertEquals(held, record(store, sid));
    assertEquals(0, store.fastPath().misses("claim"), "answered from the order read, unlocked");
    assertEquals(2, store.fastPath().hits("claim"));

    assertInstanceOf(WriteResult.Written.class, store.complete(sid, claimId, ITEM));
    OrderRecord done = record(store, sid);
    clock.advance(LEASE.multipliedBy(3));
    ClaimResult provisioned = store.claim(snapshot(sid), LEASE);
    assertInstanceOf(ClaimResult.Provisioned.class, provisioned);
    assertEquals(done, provisioned.record());
    assertEquals(done, record(store, sid), "a provisioned order is never re-opened");
    assertEquals("claim 3/0 complete 1/0 fail 0/0 extend 0/0", counts(store));
  }

  @Test
  @DisplayName(
      "a lapsed lease nobody took over: the holder still settles on the fast path; once re-claimed, its complete misses and is recorded as an orphan, once")
  void supersededCompleteRecordsTheOrphan() {
    PostgresOrderStore store = store(pooled());
    String sid = sid("orphan");
    ClaimId slow = claimed(store, sid);
    clock.advance(LEASE);
    assertInstanceOf(
        WriteResult.Written.class,
        store.extend(sid, slow, LEASE),
        "the fence is ownership, not time: an expired lease nobody took over still extends");
    clock.advance(LEASE);
    ClaimId fresh = claimed(store, sid);
    assertInstanceOf(WriteResult.Written.class, store.complete(sid, fresh, ITEM));
    OrderRecord done = record(store, sid);

    Item bought = new Item("prov-late", "LPA:late");
    for (int i = 0; i < 2; i++) {
      WriteResult stale = store.complete(sid, slow, bought);
      assertInstanceOf(
          WriteResult.Superseded.class, stale, "complete " + (i + 1) + " with " + slow);
      assertEquals(done, stale.record());
    }
    assertEquals(done, record(store, sid), "the stale complete changed nothing");
    List<Orphan> orphans = store.orphans(sid);
    assertEquals(1, orphans.size(), "recorded once however often it is retried: " + orphans);
    assertEquals(new Orphan(sid, slow, bought, clock.instant()), orphans.get(0));
    assertEquals("claim 2/0 complete 1/2 fail 0/0 extend 1/0", counts(store));
  }

  @Test
  @DisplayName(
      "a stale fail or extend misses the fast path and changes nothing, not even updatedAt")
  void staleFailAndExtendMiss() {
    PostgresOrderStore store = store(pooled());
    String sid = sid("stale");
    ClaimId slow = claimed(store, sid);
    clock.advance(LEASE);
    ClaimId fresh = claimed(store, sid);
    OrderRecord current = record(store, sid);
    clock.advance(Duration.ofSeconds(1));
    assertEquals(current, store.fail(sid, slow, "late").record());
    assertInstanceOf(WriteResult.Superseded.class, store.fail(sid, slow, "late"));
    assertInstanceOf(WriteResult.Superseded.class, store.extend(sid, slow, LEASE));
    ClaimId madeUp = new ClaimId(fresh.fence(), ClaimId.newNonce());
    assertInstanceOf(
        WriteResult.Superseded.class, store.fail(sid, madeUp, "same fence, other nonce"));
    assertEquals(current, record(store, sid));
    assertEquals(0, store.fastPath().hits("fail") + store.fastPath().hits("extend"));
    assertEquals(3, store.fastPath().misses("fail"));
    assertEquals(1, store.fastPath().misses("extend"));
  }

  @Test
  @DisplayName(
      "a replayed complete or fail misses the fast path and answers Written with the order unchanged")
  void replaysMiss() {
    PostgresOrderStore store = store(pooled());
    String sid = sid("replay");
    ClaimId claimId = claimed(store, sid);
    WriteResult failed = store.fail(sid, claimId, "provider outage");
    clock.advance(Duration.ofSeconds(5));
    WriteResult replay = store.fail(sid, claimId, "provider outage");
    assertInstanceOf(WriteResult.Written.class, replay);
    assertEquals(failed.record(), replay.record(), "a replay changes nothing, not even updatedAt");
    assertInstanceOf(
        WriteResult.Superseded.class,
        store.fail(sid, claimId, "another error"),
        "the same token with another error is not a replay");
    assertInstanceOf(
        WriteResult.Superseded.class,
        store.extend(sid, claimId, LEASE),
        "an extend is never a replay");

    String other = sid("replay_complete");
    ClaimId owner = claimed(store, other);
    WriteResult completed = store.complete(other, owner, ITEM);
    clock.advance(Duration.ofSeconds(5));
    assertEquals(completed, store.complete(other, owner, ITEM));
    assertEquals(completed.record(), record(store, other));
    assertTrue(store.orphans(other).isEmpty(), "a replay is not an orphan");
    assertEquals("claim 2/0 complete 1/1 fail 1/2 extend 0/1", counts(store));
  }

  @Test
  @DisplayName("a settle of an unknown order misses the fast path and throws UnknownOrderException")
  void unknownOrder() {
    PostgresOrderStore store = store(pooled());
    String sid = sid("unknown");
    ClaimId claimId = new ClaimId(1, ClaimId.newNonce());
    assertThrows(UnknownOrderException.class, () -> store.complete(sid, claimId, ITEM));
    assertThrows(UnknownOrderException.class, () -> store.fail(sid, claimId, "x"));
    assertThrows(UnknownOrderException.class, () -> store.extend(sid, claimId, LEASE));
    assertTrue(store.get(sid).isEmpty(), "nothing created");
    assertTrue(store.orphans(sid).isEmpty(), "no orphan for an order that does not exist");
    assertEquals("claim 0/0 complete 0/1 fail 0/1 extend 0/1", counts(store));
  }

  @Test
  @DisplayName(
      "a later snapshot of the same order does not overwrite the first and re-claims on the fast path")
  void reclaimKeepsTheFirstSnapshot() {
    PostgresOrderStore store = store(pooled());
    String sid = sid("snapshot");
    ClaimId claimId = claimed(store, sid);
    store.fail(sid, claimId, "out of stock");
    OrderSnapshot first = snapshot(sid);
    OrderSnapshot same =
        new OrderSnapshot(
            sid,
            first.productId(),
            first.quantity(),
            "other@example.com",
            first.amountTotal(),
            first.currency().toUpperCase(java.util.Locale.ROOT));
    ClaimResult again = store.claim(same, LEASE);
    assertInstanceOf(ClaimResult.Claimed.class, again);
    assertEquals(first, again.record().snapshot());
    assertEquals(first, record(store, sid).snapshot());
    assertEquals("claim 2/0 complete 0/0 fail 1/0 extend 0/0", counts(store));
  }

  @Test
  @DisplayName(
      "another order under the key misses the fast re-claim: the locking step answers Mismatch and records it")
  void otherOrderMissesTheFastPath() {
    PostgresOrderStore store = store(pooled());
    String sid = sid("other-order");
    ClaimId claimId = claimed(store, sid);
    store.fail(sid, claimId, "out of stock");
    OrderRecord before = record(store, sid);
    OrderSnapshot changed = new OrderSnapshot(sid, "esim-us-10gb", 3, null, 4999, "eur");
    ClaimResult again = store.claim(changed, LEASE);
    var mismatch = assertInstanceOf(ClaimResult.Mismatch.class, again);
    assertEquals(java.util.EnumSet.allOf(org.fencekit.store.OrderField.class), mismatch.fields());
    assertEquals(before, record(store, sid), "nothing written");
    assertEquals("claim 1/1 complete 0/0 fail 1/0 extend 0/0", counts(store));
  }

  /** The store's statements for this test's schema. */
  private Sql realSql() {
    return Sql.forTables(
        schema.name(),
        PostgresOrderStore.DEFAULT_ORDERS_TABLE,
        PostgresOrderStore.DEFAULT_ORPHANS_TABLE);
  }

  /**
   * {@code real} with one fast statement ({@code "failFast"} or {@code "reclaimFast"}) drifted from
   * the state machine: {@code from} replaced by {@code to} in its text.
   */
  private static Sql drifted(Sql real, String statement, String from, String to) {
    String fail = real.failFast();
    String reclaim = real.reclaimFast();
    switch (statement) {
      case "failFast" -> fail = fail.replace(from, to);
      case "reclaimFast" -> reclaim = reclaim.replace(from, to);
      default -> throw new IllegalArgumentException("no drift for " + statement);
    }
    return new Sql(
        real.createNamespace(),
        real.templates(),
        real.probe(),
        real.lockMigrations(),
        real.selectOrder(),
        real.lockOrder(),
        real.lockOrderServerTime(),
        real.insertOrder(),
        real.updateOrder(),
        real.insertOrphan(),
        real.insertMismatch(),
        real.selectOrphans(),
        reclaim,
        real.completeFast(),
        real.completeAlone(),
        fail,
        real.extendFast(),
        real.admin());
  }

  @Test
  @DisplayName(
      "a fast statement that writes something other than the state machine's record is caught, not answered")
  void driftBetweenSqlAndMachineIsCaught() {
    PostgresOrderStore store = store(pooled());
    String sid = sid("drift");
    ClaimId claimId = claimed(store, sid);
    Sql real = realSql();
    assertTrue(real.failFast().contains("last_error = ?"), real.failFast());
    Sql drifted = drifted(real, "failFast", "last_error = ?", "last_error = 'drifted: ' || ?");
    PostgresStorage storage =
        new PostgresStorage(
            new JdbcStorage.Connections(
                "postgres", simpleDataSource(), null, 30, "test", Credentials.NONE),
            drifted,
            false);
    FastPath fast = new FastPath(storage, clock);
    IllegalStateException e =
        assertThrows(
            IllegalStateException.class,
            () -> fast.write(new WriteRequest.Fail(sid, claimId, "provider outage")));
    assertTrue(e.getMessage().contains("disagree"), e.getMessage());
    assertTrue(e.getMessage().contains("drifted: provider outage"), e.getMessage());
    assertEquals(0, fast.hits("fail"));
  }

  @Test
  @DisplayName(
      "a re-claim whose statement writes something other than the state machine's record is caught, not answered")
  void driftedReclaimIsCaught() {
    PostgresOrderStore store = store(pooled());
    String sid = sid("drift_reclaim");
    ClaimId claimId = claimed(store, sid);
    assertInstanceOf(WriteResult.Written.class, store.fail(sid, claimId, "provider outage"));
    Sql real = realSql();
    assertTrue(real.reclaimFast().contains("updated_at = ?"), real.reclaimFast());
    Sql drifted = drifted(real, "reclaimFast", "updated_at = ?", "updated_at = ? + 1");
    PostgresStorage storage =
        new PostgresStorage(
            new JdbcStorage.Connections(
                "postgres", simpleDataSource(), null, 30, "test", Credentials.NONE),
            drifted,
            false);
    FastPath fast = new FastPath(storage, clock);
    IllegalStateException e =
        assertThrows(
            IllegalStateException.class, () -> fast.claim(new ClaimRequest(snapshot(sid), LEASE)));
    assertTrue(e.getMessage().contains("disagree"), e.getMessage());
    assertEquals(0, fast.hits("claim"));
  }

  // ------------------------------------------------------------------ connections and failures

  @Test
  @DisplayName(
      "a user's pool lending connections with auto-commit off gets them back with auto-commit off")
  void userPoolAutoCommitOff() throws SQLException {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(TestPostgres.jdbcUrl());
    config.setMaximumPoolSize(2);
    config.setAutoCommit(false);
    try (HikariDataSource pool = new HikariDataSource(config)) {
      PostgresOrderStore store =
          store(
              PostgresOrderStore.builder()
                  .dataSource(pool)
                  .schema(schema.name())
                  .createSchema(true)
                  .clock(clock));
      String sid = sid("user_pool");
      ClaimId claimId = claimed(store, sid);
      assertInstanceOf(WriteResult.Written.class, store.complete(sid, claimId, ITEM));
      assertEquals("claim 1/0 complete 1/0 fail 0/0 extend 0/0", counts(store));
      assertEquals(
          0, pool.getHikariPoolMXBean().getActiveConnections(), "every connection returned");
      try (Connection connection = pool.getConnection()) {
        assertFalse(connection.getAutoCommit(), "auto-commit as the pool lent it");
        connection.rollback();
      }
    }
  }

  @Test
  @DisplayName(
      "a connection lost at a fast statement: StoreUnavailableException with the outcome unknown, and the retry is safe")
  void lostConnectionLeavesTheOutcomeUnknown() {
    AtomicBoolean killAtComplete = new AtomicBoolean();
    DataSource dataSource =
        Sabotage.wrap(
            simpleDataSource(),
            new Sabotage.Hooks() {
              @Override
              public void beforePrepare(String sql, int pid) throws SQLException {
                if (sql.contains("SET status = 'PROVISIONED'") && killAtComplete.getAndSet(false)) {
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
                .clock(clock));
    String sid = sid("lost");
    ClaimId claimId = claimed(store, sid);

    killAtComplete.set(true);
    StoreUnavailableException e =
        assertThrows(StoreUnavailableException.class, () -> store.complete(sid, claimId, ITEM));
    assertTrue(e.outcomeUnknown(), e::getMessage);
    assertTrue(e.getMessage().contains("outcome is unknown"), e.getMessage());
    assertEquals("complete", e.operation());

    assertEquals(
        OrderStatus.PENDING,
        record(store, sid).status(),
        "the backend died before the statement ran");
    assertInstanceOf(WriteResult.Written.class, store.complete(sid, claimId, ITEM));
    assertInstanceOf(WriteResult.Written.class, store.complete(sid, claimId, ITEM), "a replay");
  }

  @Test
  @DisplayName(
      "a fast statement the server refuses with an error (the table was dropped) wrote nothing, and says so")
  void serverErrorIsNotUnknown() {
    String absent = schema.name() + "_absent";
    PostgresOrderStore store = store(pooled().schema(absent));
    TestPostgres.execute("DROP TABLE " + absent + ".fencekit_orders");
    StoreUnavailableException e =
        assertThrows(
            StoreUnavailableException.class, () -> store.claim(snapshot(sid("absent")), LEASE));
    assertFalse(e.outcomeUnknown(), e::getMessage);
    assertTrue(e.getMessage().contains("createSchema(true)"), e.getMessage());
  }

  @Test
  @DisplayName(
      "at SERIALIZABLE, a fast settle that meets a concurrent update is rolled back (40001) and the locking transaction decides")
  void serializationFailureFallsBack() throws Exception {
    PostgresOrderStore store = store(serializable());
    String sid = sid("serializable");
    ClaimId claimId = claimed(store, sid);
    String orders = schema.name() + ".fencekit_orders";
    ExecutorService executor = Executors.newSingleThreadExecutor();
    try (Connection other = TestPostgres.connect()) {
      other.setAutoCommit(false);
      try (PreparedStatement lock =
          other.prepareStatement("SELECT 1 FROM " + orders + " WHERE session_id = ? FOR UPDATE")) {
        lock.setString(1, sid);
        lock.executeQuery().close();
      }
      Future<WriteResult> complete = executor.submit(() -> store.complete(sid, claimId, ITEM));
      // this schema's statement only: other test classes (another fork) complete orders too
      PostgresOrderStoreTest.awaitLockWait(
          "%\"" + schema.name() + "\".\"fencekit_orders\" AS o%SET status = 'PROVISIONED'%");
      try (PreparedStatement touch =
          other.prepareStatement(
              "UPDATE " + orders + " SET updated_at = updated_at WHERE session_id = ?")) {
        touch.setString(1, sid);
        touch.executeUpdate();
      }
      other.commit();
      WriteResult result = complete.get(60, TimeUnit.SECONDS);
      assertInstanceOf(WriteResult.Written.class, result, "the token is still current");
      assertEquals(result.record(), record(store, sid));
      assertEquals(1, store.fastPath().misses("complete"), "the fast statement was rolled back");
      assertEquals(0, store.fastPath().hits("complete"));
    } finally {
      executor.shutdownNow();
    }
  }

  // ------------------------------------------------------------------ races across pools

  /**
   * Per order: attempt A claims, its lease lapses, then A's late settle and attempt B's claim are
   * released together, from two stores with pools of their own (B alternating between the fast path
   * and locking transactions). The fence is ownership: whichever lands first decides, and the other
   * must see it.
   */
  @Test
  @DisplayName(
      "a stale settle racing a fresh claim across two pools: the settle lands and the claim sees it, or the claim wins and the settle is superseded; never both")
  void staleSettleRacesFreshClaim() throws Exception {
    PostgresOrderStore a = store(pooled());
    PostgresOrderStore fastB = store(pooled().createSchema(false));
    PostgresOrderStore lockingB =
        store(pooled().createSchema(false).singleStatementFastPath(false));
    ExecutorService executor = Executors.newFixedThreadPool(2);
    int settledFirst = 0;
    int claimedFirst = 0;
    try {
      for (int i = 0; i < 40; i++) {
        String sid = sid("race_" + i);
        boolean complete = i % 2 == 0;
        PostgresOrderStore b = (i / 2) % 2 == 0 ? fastB : lockingB;
        ClaimId slow = claimed(a, sid);
        clock.advance(LEASE);
        CyclicBarrier start = new CyclicBarrier(2);
        Callable<WriteResult> settle =
            () -> {
              start.await(30, TimeUnit.SECONDS);
              return complete ? a.complete(sid, slow, ITEM) : a.fail(sid, slow, "provider outage");
            };
        Callable<ClaimResult> claim =
            () -> {
              start.await(30, TimeUnit.SECONDS);
              return b.claim(snapshot(sid), LEASE);
            };
        Future<WriteResult> settled = executor.submit(settle);
        Future<ClaimResult> claimed = executor.submit(claim);
        WriteResult s = settled.get(60, TimeUnit.SECONDS);
        ClaimResult c = claimed.get(60, TimeUnit.SECONDS);
        OrderRecord end = record(a, sid);
        String what =
            "order '"
                + sid
                + "', stale "
                + (complete ? "complete" : "fail")
                + " with "
                + slow
                + ": settle "
                + s
                + ", claim "
                + c
                + ", record "
                + end;
        List<Orphan> orphans = a.orphans(sid);
        if (s instanceof WriteResult.Written) {
          settledFirst++;
          if (complete) {
            assertInstanceOf(ClaimResult.Provisioned.class, c, what);
            assertEquals(OrderStatus.PROVISIONED, end.status(), what);
            assertEquals(slow, end.settledBy(), what);
          } else {
            assertInstanceOf(ClaimResult.Claimed.class, c, "a failed order is claimable: " + what);
            assertEquals(2, end.fence(), what);
            assertEquals("provider outage", end.lastError(), what);
          }
          assertTrue(orphans.isEmpty(), what);
        } else {
          claimedFirst++;
          assertInstanceOf(ClaimResult.Claimed.class, c, what);
          assertEquals(((ClaimResult.Claimed) c).claimId(), end.claimId(), what);
          assertEquals(OrderStatus.PENDING, end.status(), what);
          assertEquals(c.record(), end, what);
          assertEquals(complete ? 1 : 0, orphans.size(), what);
        }
        clock.set(TestClock.START);
      }
    } finally {
      executor.shutdownNow();
    }
    assertEquals(40, settledFirst + claimedFirst);
  }

  /**
   * Four stores, two on the fast path and two on locking transactions, each with a pool of its own,
   * claim the same 30 fresh orders, released together per order (the fast inserts race the locking
   * transactions' insert-if-absent); then, past the lease, all of them claim each order again (the
   * fast inserts miss and race the locking re-claims). Each round must grant exactly one claim per
   * order, with fence 1 and then 2, and everyone else must be told InFlight with the winner's
   * claim. Then every winner settles: only the second round's winners land; the first round's are
   * orphaned.
   */
  @Test
  @DisplayName(
      "fast first claims race locking claims over the same orders, then re-claims: one owner per fence, the rest InFlight")
  void firstClaimsAndReclaimsRace() throws Exception {
    List<PostgresOrderStore> stores =
        List.of(
            store(pooled()),
            store(pooled().createSchema(false)),
            store(pooled().createSchema(false).singleStatementFastPath(false)),
            store(pooled().createSchema(false).singleStatementFastPath(false)));
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < 30; i++) {
      ids.add(sid("claims_" + i));
    }
    ExecutorService executor = Executors.newFixedThreadPool(stores.size());
    try {
      List<ClaimId> firsts = round(executor, stores, ids, 1);
      clock.advance(LEASE);
      List<ClaimId> seconds = round(executor, stores, ids, 2);
      for (int i = 0; i < ids.size(); i++) {
        String sid = ids.get(i);
        assertInstanceOf(
            WriteResult.Superseded.class, stores.get(i % 4).complete(sid, firsts.get(i), ITEM));
        assertInstanceOf(
            WriteResult.Written.class, stores.get((i + 1) % 4).complete(sid, seconds.get(i), ITEM));
        assertEquals(1, stores.get(0).orphans(sid).size(), "order '" + sid + "'");
      }
    } finally {
      executor.shutdownNow();
    }
    long fastClaims =
        stores.get(0).fastPath().hits("claim") + stores.get(1).fastPath().hits("claim");
    assertTrue(
        fastClaims > 0, "the fast path must have won some claims, or the race tests nothing");
  }

  /** Every store claims every order, together per order; returns the winner's token per order. */
  private List<ClaimId> round(
      ExecutorService executor, List<PostgresOrderStore> stores, List<String> ids, long fence)
      throws Exception {
    List<ClaimId> winners = new ArrayList<>();
    for (String sid : ids) {
      CyclicBarrier start = new CyclicBarrier(stores.size());
      List<Future<ClaimResult>> futures = new ArrayList<>();
      for (PostgresOrderStore store : stores) {
        futures.add(
            executor.submit(
                () -> {
                  start.await(30, TimeUnit.SECONDS);
                  return store.claim(snapshot(sid), LEASE);
                }));
      }
      List<ClaimResult> results = new ArrayList<>();
      for (Future<ClaimResult> future : futures) {
        results.add(future.get(60, TimeUnit.SECONDS));
      }
      List<ClaimId> granted = new ArrayList<>();
      for (ClaimResult result : results) {
        if (result instanceof ClaimResult.Claimed won) {
          granted.add(won.claimId());
        }
      }
      assertEquals(1, granted.size(), () -> "order '" + sid + "' round " + fence + ": " + results);
      ClaimId winner = granted.get(0);
      assertEquals(fence, winner.fence(), () -> "order '" + sid + "': " + results);
      for (ClaimResult result : results) {
        if (!(result instanceof ClaimResult.Claimed)) {
          assertInstanceOf(
              ClaimResult.InFlight.class, result, () -> "order '" + sid + "': " + results);
          assertEquals(winner, result.record().claimId(), () -> "order '" + sid + "': " + results);
        }
      }
      winners.add(winner);
    }
    return winners;
  }
}
