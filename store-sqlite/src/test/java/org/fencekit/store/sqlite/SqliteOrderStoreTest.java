package org.fencekit.store.sqlite;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.fencekit.store.ClaimId;
import org.fencekit.store.ClaimResult;
import org.fencekit.store.Item;
import org.fencekit.store.OrderRecord;
import org.fencekit.store.OrderSnapshot;
import org.fencekit.store.OrderStatus;
import org.fencekit.store.StoreUnavailableException;
import org.fencekit.store.WriteResult;
import org.fencekit.tck.TestClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The SQLite specifics the TCK cannot see: pragmas, the shared lock, failures, lifecycle. */
class SqliteOrderStoreTest {

  private static final Duration LEASE = Duration.ofMinutes(2);
  private static final Item ESIM = new Item("prov-esim-1", "LPA:1$smdp.example$ACTIVATION-1");

  @TempDir Path dir;

  private final TestClock clock = new TestClock();
  private final List<SqliteOrderStore> stores = new ArrayList<>();

  private Path file() {
    return dir.resolve("orders.db");
  }

  private SqliteOrderStore open(SqliteOrderStore.Builder builder) {
    SqliteOrderStore store = builder.build();
    stores.add(store);
    return store;
  }

  private SqliteOrderStore open() {
    return open(SqliteOrderStore.builder(file()).clock(clock));
  }

  @AfterEach
  void closeStores() {
    stores.forEach(SqliteOrderStore::close);
  }

  private static ClaimId claimed(ClaimResult result) {
    return assertInstanceOf(
            ClaimResult.Claimed.class, result, () -> "expected Claimed, got " + result)
        .claimId();
  }

  @Test
  @DisplayName(
      "a file whose orders table still has the claim_fence column of earlier versions keeps working")
  void earlierFileWithClaimFence() throws Exception {
    ClaimId old = new ClaimId(3, ClaimId.newNonce());
    try (Connection connection = DriverManager.getConnection("jdbc:sqlite:" + file());
        Statement statement = connection.createStatement()) {
      statement.execute(
          "CREATE TABLE fencekit_orders (session_id TEXT NOT NULL PRIMARY KEY, product_id TEXT"
              + " NOT NULL, quantity INTEGER NOT NULL, customer_email TEXT, amount_total INTEGER"
              + " NOT NULL, currency TEXT NOT NULL, status TEXT NOT NULL, provider_order_id TEXT,"
              + " item_payload TEXT, last_error TEXT, fence INTEGER NOT NULL, claim_fence INTEGER"
              + " CHECK (claim_fence IS NULL OR claim_fence = fence), claim_nonce TEXT, claimed_at"
              + " INTEGER, lease_expires_at INTEGER, settled_fence INTEGER, settled_nonce TEXT,"
              + " updated_at INTEGER NOT NULL) STRICT");
      long at = TestClock.START.toEpochMilli();
      statement.execute(
          "INSERT INTO fencekit_orders VALUES ('cs_old', 'esim', 1, NULL, 100, 'usd', 'PENDING',"
              + " NULL, NULL, 'earlier', 3, 3, '"
              + old.nonce()
              + "', "
              + at
              + ", "
              + (at + LEASE.toMillis())
              + ", NULL, NULL, "
              + at
              + ")");
    }
    SqliteOrderStore store = open();
    assertEquals(old, store.get("cs_old").orElseThrow().claimId(), "the old row reads as before");
    clock.advance(LEASE);
    ClaimId next =
        claimed(store.claim(new OrderSnapshot("cs_old", "esim", 1, null, 100, "usd"), LEASE));
    assertEquals(4, next.fence());
    assertEquals(4L, claimFence(), "claim_fence still repeats the claim's fence for old readers");
    assertInstanceOf(WriteResult.Superseded.class, store.complete("cs_old", old, ESIM));
    assertInstanceOf(WriteResult.Written.class, store.complete("cs_old", next, ESIM));
    assertEquals(OrderStatus.PROVISIONED, store.get("cs_old").orElseThrow().status());
    assertEquals(1, store.orphans("cs_old").size());
    assertEquals(null, claimFence(), "no claim, no claim_fence");
  }

  /** The claim_fence column of order cs_old, as an earlier version would read it. */
  private Long claimFence() throws SQLException {
    try (Connection connection = DriverManager.getConnection("jdbc:sqlite:" + file());
        Statement statement = connection.createStatement();
        ResultSet row =
            statement.executeQuery(
                "SELECT claim_fence FROM fencekit_orders WHERE session_id = 'cs_old'")) {
      row.next();
      long value = row.getLong(1);
      return row.wasNull() ? null : value;
    }
  }

  @Test
  @DisplayName(
      "by default every pooled connection runs WAL, synchronous FULL and a 5 s busy_timeout, and"
          + " fetches no generated keys")
  void defaultPragmas() {
    List<SqliteStorage.ConnectionSettings> settings = open().storage().connectionSettings();
    assertEquals(SqliteOrderStore.Builder.DEFAULT_CONNECTIONS, settings.size());
    for (SqliteStorage.ConnectionSettings each : settings) {
      assertEquals(new SqliteStorage.ConnectionSettings("wal", 2, 5000, false), each);
    }
  }

  @Test
  @DisplayName("synchronous NORMAL, busyTimeout and connections are applied to every connection")
  void configuredPragmas() {
    SqliteOrderStore store =
        open(
            SqliteOrderStore.builder(file())
                .clock(clock)
                .synchronous(SqliteOrderStore.Synchronous.NORMAL)
                .busyTimeout(Duration.ofMillis(1234))
                .connections(6));
    List<SqliteStorage.ConnectionSettings> settings = store.storage().connectionSettings();
    assertEquals(6, settings.size());
    for (SqliteStorage.ConnectionSettings each : settings) {
      assertEquals(new SqliteStorage.ConnectionSettings("wal", 1, 1234, false), each);
    }
  }

  @Test
  @DisplayName("the tables are created once: reopening, and a second store, keep the orders")
  void idempotentSchema() {
    SqliteOrderStore first = open();
    ClaimId claimId = claimed(first.claim(StoreProcess.snapshot("cs_schema"), LEASE));
    SqliteOrderStore second = open();
    assertInstanceOf(WriteResult.Written.class, second.complete("cs_schema", claimId, ESIM));
    assertEquals(OrderStatus.PROVISIONED, first.get("cs_schema").orElseThrow().status());
  }

  @Test
  @DisplayName("stores with other table names in the same file keep separate orders")
  void customTables() {
    SqliteOrderStore shopA =
        open(
            SqliteOrderStore.builder(file())
                .clock(clock)
                .ordersTable("shop_a_orders")
                .orphansTable("shop_a_orphans"));
    SqliteOrderStore shopB =
        open(
            SqliteOrderStore.builder(file())
                .clock(clock)
                .ordersTable("select")
                .orphansTable("Order"));
    claimed(shopA.claim(StoreProcess.snapshot("cs_shared_id"), LEASE));
    assertEquals(Optional.empty(), shopB.get("cs_shared_id"));
    claimed(shopB.claim(StoreProcess.snapshot("cs_shared_id"), LEASE));
  }

  @Test
  @DisplayName(
      "every store on one file shares one write lock, whatever path spelling it was given; it lets"
          + " a running writer barge (a fair one cost 25-40% at 4 and 16 threads)")
  void sharedLock() throws Exception {
    Files.createDirectories(dir.resolve("sub"));
    Path link = Files.createSymbolicLink(dir.resolve("link.db"), file());
    SqliteOrderStore plain = open();
    SqliteOrderStore dotted =
        open(SqliteOrderStore.builder(dir.resolve("sub/../orders.db")).clock(clock));
    SqliteOrderStore linked = open(SqliteOrderStore.builder(link).clock(clock));
    SqliteOrderStore other = open(SqliteOrderStore.builder(dir.resolve("other.db")).clock(clock));
    assertFalse(plain.storage().writeLock().isFair());
    assertSame(plain.storage().writeLock(), dotted.storage().writeLock());
    assertSame(plain.storage().writeLock(), linked.storage().writeLock());
    assertNotSame(plain.storage().writeLock(), other.storage().writeLock());
  }

  @Test
  @DisplayName("the file's lock is dropped when the last store on it closes")
  void lockReleased() {
    int before = FileLocks.size();
    SqliteOrderStore first = open();
    SqliteOrderStore second = open();
    assertEquals(before + 1, FileLocks.size());
    first.close();
    assertEquals(before + 1, FileLocks.size());
    second.close();
    second.close();
    assertEquals(before, FileLocks.size());
  }

  @Test
  @DisplayName(
      "close is idempotent, later calls throw IllegalStateException, and other stores carry on")
  void close() {
    SqliteOrderStore store = open();
    SqliteOrderStore other = open();
    ClaimId claimId = claimed(store.claim(StoreProcess.snapshot("cs_close"), LEASE));
    store.close();
    store.close();
    IllegalStateException e =
        assertThrows(
            IllegalStateException.class,
            () -> store.claim(StoreProcess.snapshot("cs_close_2"), LEASE));
    assertTrue(
        e.getMessage().contains("closed") && e.getMessage().contains(file().toString()),
        e.getMessage());
    assertThrows(IllegalStateException.class, () -> store.complete("cs_close", claimId, ESIM));
    assertThrows(IllegalStateException.class, () -> store.get("cs_close"));
    assertThrows(IllegalStateException.class, () -> store.orphans("cs_close"));
    assertInstanceOf(WriteResult.Written.class, other.complete("cs_close", claimId, ESIM));
  }

  @Test
  @DisplayName("an acquireTimeout too long to count in nanoseconds waits as long as it can")
  void hugeAcquireTimeout() {
    SqliteOrderStore store =
        open(
            SqliteOrderStore.builder(file())
                .clock(clock)
                .acquireTimeout(Duration.ofSeconds(Long.MAX_VALUE)));
    ClaimId claimId = claimed(store.claim(StoreProcess.snapshot("cs_patient"), LEASE));
    assertEquals(claimId, store.get("cs_patient").orElseThrow().claimId());
  }

  @Test
  @DisplayName("a pool of one connection still serves writes and reads")
  void oneConnection() {
    SqliteOrderStore store = open(SqliteOrderStore.builder(file()).clock(clock).connections(1));
    ClaimId claimId = claimed(store.claim(StoreProcess.snapshot("cs_one"), LEASE));
    assertEquals(claimId, store.get("cs_one").orElseThrow().claimId());
    assertInstanceOf(WriteResult.Written.class, store.complete("cs_one", claimId, ESIM));
  }

  @Test
  @DisplayName(
      "another process holding the write lock past busyTimeout: StoreUnavailableException, nothing written")
  void busyElsewhere() throws Exception {
    SqliteOrderStore store =
        open(SqliteOrderStore.builder(file()).clock(clock).busyTimeout(Duration.ofMillis(50)));
    ClaimId claimId = claimed(store.claim(StoreProcess.snapshot("cs_busy"), LEASE));
    // A connection outside the store stands for another process: it holds the write lock with an
    // uncommitted change.
    try (Connection intruder = DriverManager.getConnection("jdbc:sqlite:" + file());
        Statement s = intruder.createStatement()) {
      s.execute("BEGIN IMMEDIATE");
      s.execute(
          "UPDATE fencekit_orders SET last_error = 'uncommitted' WHERE session_id = 'cs_busy'");

      StoreUnavailableException e =
          assertThrows(
              StoreUnavailableException.class, () -> store.complete("cs_busy", claimId, ESIM));
      assertFalse(e.outcomeUnknown(), "nothing was written: " + e.getMessage());
      assertEquals("complete", e.operation());
      assertTrue(
          e.getMessage().contains(file().toString()) && e.getMessage().contains("busyTimeout"),
          e.getMessage());
      assertThrows(
          StoreUnavailableException.class,
          () -> store.claim(StoreProcess.snapshot("cs_busy_new"), LEASE));

      // WAL: reads go on, and see the last commit, not the intruder's change.
      OrderRecord during = store.get("cs_busy").orElseThrow();
      assertEquals(OrderStatus.PENDING, during.status());
      assertEquals(null, during.lastError());
      s.execute("ROLLBACK");
    }
    assertEquals(Optional.empty(), store.get("cs_busy_new"));
    assertInstanceOf(
        WriteResult.Written.class,
        store.complete("cs_busy", claimId, ESIM),
        "the store must recover once the file is free");
  }

  @Test
  @DisplayName("an exception inside the atomic step rolls it all back and propagates as it is")
  void rollback() {
    SqliteOrderStore store = open();
    ClaimId claimId = claimed(store.claim(StoreProcess.snapshot("cs_rollback"), LEASE));
    OrderRecord before = store.get("cs_rollback").orElseThrow();
    IllegalStateException thrown = new IllegalStateException("boom after writing");
    IllegalStateException e =
        assertThrows(
            IllegalStateException.class,
            () ->
                store
                    .storage()
                    .atomically(
                        "complete",
                        "cs_rollback",
                        order -> {
                          OrderRecord current = order.current().orElseThrow();
                          order.update(
                              new OrderRecord(
                                  current.snapshot(),
                                  OrderStatus.FAILED,
                                  null,
                                  "half done",
                                  null,
                                  null,
                                  null,
                                  current.fence(),
                                  current.claimId(),
                                  current.updatedAt()));
                          order.addOrphan(
                              new org.fencekit.store.Orphan(
                                  "cs_rollback", claimId, ESIM, current.updatedAt()));
                          assertEquals(
                              OrderStatus.FAILED,
                              order.current().orElseThrow().status(),
                              "the step sees its own write");
                          throw thrown;
                        }));
    assertSame(thrown, e);
    assertEquals(before, store.get("cs_rollback").orElseThrow());
    assertEquals(List.of(), store.orphans("cs_rollback"));
    assertInstanceOf(
        WriteResult.Written.class,
        store.complete("cs_rollback", claimId, ESIM),
        "the connection must be usable after a rollback");
  }

  @Test
  @DisplayName("threads writing through two stores on one file never meet SQLite's busy handler")
  void noBusyWithinOneProcess() throws Exception {
    // busy_timeout 1 ms: any two of these writers meeting inside SQLite would fail at once, so
    // every write succeeding shows this process's writers queue on the shared lock instead.
    SqliteOrderStore.Builder builder =
        SqliteOrderStore.builder(file()).clock(clock).busyTimeout(Duration.ofMillis(1));
    List<SqliteOrderStore> two = List.of(open(builder), open(builder));
    int threads = 6;
    int rounds = 15;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    CountDownLatch start = new CountDownLatch(1);
    AtomicInteger sharedClaims = new AtomicInteger();
    ConcurrentLinkedQueue<String> problems = new ConcurrentLinkedQueue<>();
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        SqliteOrderStore store = two.get(t % 2);
        int thread = t;
        done.add(
            pool.submit(
                () -> {
                  start.await();
                  for (int i = 0; i < rounds; i++) {
                    String own = "cs_hammer_" + thread + "_" + i;
                    ClaimId claimId = claimed(store.claim(StoreProcess.snapshot(own), LEASE));
                    WriteResult written =
                        i % 2 == 0
                            ? store.complete(own, claimId, ESIM)
                            : store.fail(own, claimId, "provider outage");
                    if (!(written instanceof WriteResult.Written)) {
                      problems.add(own + ": " + written);
                    }
                    if (store.claim(StoreProcess.snapshot("cs_hammer_shared_" + i % 3), LEASE)
                        instanceof ClaimResult.Claimed) {
                      sharedClaims.incrementAndGet();
                    }
                  }
                  return null;
                }));
      }
      start.countDown();
      for (Future<?> each : done) {
        each.get(120, TimeUnit.SECONDS); // rethrows any StoreUnavailableException
      }
    } finally {
      pool.shutdownNow();
    }
    assertEquals(List.of(), List.copyOf(problems));
    assertEquals(
        3, sharedClaims.get(), "each shared order is claimed exactly once while its lease lives");
  }

  /** Claims, completes, reads and rolls back {@code rounds} orders named {@code prefix_i}. */
  private static void useEveryStatement(SqliteOrderStore store, String prefix, int rounds) {
    for (int i = 0; i < rounds; i++) {
      String id = prefix + "_" + i;
      ClaimId claimId = claimed(store.claim(StoreProcess.snapshot(id), LEASE));
      assertInstanceOf(WriteResult.Written.class, store.complete(id, claimId, ESIM));
      assertEquals(OrderStatus.PROVISIONED, store.get(id).orElseThrow().status());
      assertEquals(List.of(), store.orphans(id));
      RuntimeException thrown = new IllegalStateException("roll back");
      assertSame(
          thrown,
          assertThrows(
              RuntimeException.class,
              () ->
                  store
                      .storage()
                      .atomically(
                          "complete",
                          id,
                          order -> {
                            order.current().orElseThrow();
                            throw thrown;
                          })));
    }
  }

  // BEGIN, COMMIT, ROLLBACK and the five queries
  private static final int STATEMENTS = 8;

  @Test
  @DisplayName("each pooled connection prepares each statement once, however many calls it serves")
  void statementsPreparedOncePerConnection() {
    SqliteOrderStore store = open(SqliteOrderStore.builder(file()).clock(clock).connections(2));
    useEveryStatement(store, "cs_prepared", 20);
    List<SqliteStorage.ConnectionUse> uses = store.storage().connectionUse();
    assertEquals(2, uses.size());
    int prepares = 0;
    for (SqliteStorage.ConnectionUse use : uses) {
      assertEquals(1, use.opens(), () -> "no connection failed, none was reopened: " + uses);
      assertTrue(use.prepares() <= STATEMENTS, () -> "statements prepared again: " + uses);
      prepares += use.prepares();
    }
    // the calls above use 7 of them (BEGIN, COMMIT, ROLLBACK, the order's read, insert and
    // update, the orphans' read), now all on the connection given back last
    assertTrue(
        prepares >= STATEMENTS - 1,
        () -> "every statement used is prepared on some connection: " + uses);
  }

  @Test
  @DisplayName(
      "calls made one at a time all run on the connection used last: its page cache stays warm")
  void callsOneAtATimeReuseTheLastConnection() {
    // A connection whose cache another connection's commit made stale reads the pages it needs
    // again at its next transaction: a pool handing out the least recently used connection made
    // every write pay that (about 1.5x the time per claim + complete with 8 connections than 1).
    SqliteOrderStore store = open(SqliteOrderStore.builder(file()).clock(clock).connections(4));
    useEveryStatement(store, "cs_warm", 12);
    List<SqliteStorage.ConnectionUse> uses = store.storage().connectionUse();
    assertEquals(
        1,
        uses.stream().filter(use -> use.prepares() > 0).count(),
        () -> "calls one at a time ran on more than one connection: " + uses);
  }

  @Test
  @DisplayName(
      "a connection closed under the store fails one call, then is reopened with fresh statements")
  void brokenConnectionReopened() throws Exception {
    SqliteOrderStore store = open(SqliteOrderStore.builder(file()).clock(clock).connections(2));
    useEveryStatement(store, "cs_before_break", 3);
    store.storage().breakConnections();

    // Each broken connection fails the one call that meets it, reads and writes alike, and
    // nothing is written; after that every call is served.
    ClaimId claimId = null;
    int failures = 0;
    for (int i = 0; i < 6 && claimId == null; i++) {
      try {
        assertEquals(Optional.empty(), store.get("cs_after_break"));
        claimId = claimed(store.claim(StoreProcess.snapshot("cs_after_break"), LEASE));
      } catch (StoreUnavailableException e) {
        assertFalse(e.outcomeUnknown(), e::getMessage);
        failures++;
      }
    }
    assertTrue(
        failures >= 1 && failures <= 2, "one failure per broken connection, got " + failures);
    assertTrue(claimId != null, "the store recovered");
    useEveryStatement(store, "cs_after_break", 5);
    assertInstanceOf(WriteResult.Written.class, store.complete("cs_after_break", claimId, ESIM));
    assertEquals(OrderStatus.PROVISIONED, store.get("cs_before_break_0").orElseThrow().status());

    // Writes first this time: a failed write is not written and its connection is reopened.
    store.storage().breakConnections();
    List<String> failed = new ArrayList<>();
    String written = null;
    for (int i = 0; i < 6 && written == null; i++) {
      String id = "cs_write_after_break_" + i;
      try {
        claimed(store.claim(StoreProcess.snapshot(id), LEASE));
        written = id;
      } catch (StoreUnavailableException e) {
        assertFalse(e.outcomeUnknown(), e::getMessage);
        failed.add(id);
      }
    }
    assertTrue(written != null, "the store recovered for writes");
    assertTrue(failed.size() <= 2, "at most one failure per broken connection: " + failed);
    useEveryStatement(store, "cs_more_writes", 5);
    for (String id : failed) {
      assertEquals(Optional.empty(), store.get(id), id + " failed and must not have been written");
    }

    // The pool hands out the connection given back last, so a reopened connection that served
    // no call since has prepared nothing; the ones that did prepared their own statements, once.
    int prepares = 0;
    for (SqliteStorage.ConnectionUse use : store.storage().connectionUse()) {
      assertTrue(
          use.opens() >= 2 && use.opens() <= 3, "every broken connection was reopened: " + use);
      assertTrue(
          use.prepares() <= STATEMENTS,
          "the reopened connection prepared its own statements, once: " + use);
      prepares += use.prepares();
    }
    assertTrue(prepares >= 1, "the calls after the break ran on statements prepared anew");
  }
}
