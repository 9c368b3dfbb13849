package org.fencekit.store.mysql;

import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.fencekit.store.ClaimId;
import org.fencekit.store.ClaimResult;
import org.fencekit.store.Item;
import org.fencekit.store.OrderRecord;
import org.fencekit.store.OrderSnapshot;
import org.fencekit.tck.TestClock;
import org.fencekit.testsupport.TestMysql;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What the store tests beside the TCK share: a database of their own on the test server (made
 * before a class's tests, dropped after them), a fresh {@link TestClock} per test, stores and pools
 * closed after each test, and small helpers to make orders.
 */
abstract class MysqlStoreTestSupport {

  static final Duration LEASE = Duration.ofMinutes(2);
  static final Item ITEM = new Item("prov-1", "LPA:1$smdp.example$A");
  static final AtomicInteger ORDERS = new AtomicInteger();

  /** Each test class's own database; every test is skipped (or fails) without a server. */
  @RegisterExtension static final TestMysql.ClassDatabase database = TestMysql.databasePerClass();

  private final List<AutoCloseable> opened = new ArrayList<>();
  TestClock clock;

  @BeforeEach
  void newClock() {
    clock = new TestClock();
  }

  @AfterEach
  void closeAll() throws Exception {
    for (int i = opened.size() - 1; i >= 0; i--) {
      opened.get(i).close();
    }
    opened.clear();
  }

  /** Closes {@code closeable} after the test, in reverse order of tracking. */
  <T extends AutoCloseable> T track(T closeable) {
    opened.add(closeable);
    return closeable;
  }

  /** A store with its own pool of two in this class's database, on the test clock. */
  MysqlOrderStore.Builder pooled() {
    return MysqlOrderStore.builder()
        .jdbcUrl(database.jdbcUrl())
        .maximumPoolSize(2)
        .createSchema(true)
        .clock(clock);
  }

  MysqlOrderStore store(MysqlOrderStore.Builder builder) {
    return track(builder.build());
  }

  static String sid(String label) {
    return "cs_" + label + "_" + ORDERS.incrementAndGet();
  }

  static OrderSnapshot snapshot(String sessionId) {
    return new OrderSnapshot(sessionId, "esim-eu-5gb", 1, "ada@example.com", 1999, "usd");
  }

  static ClaimId claimed(MysqlOrderStore store, String sessionId) {
    ClaimResult result = store.claim(snapshot(sessionId), LEASE);
    assertInstanceOf(
        ClaimResult.Claimed.class, result, () -> "claim of '" + sessionId + "': " + result);
    return ((ClaimResult.Claimed) result).claimId();
  }

  static OrderRecord record(MysqlOrderStore store, String sessionId) {
    return store
        .get(sessionId)
        .orElseThrow(() -> new AssertionError("no order '" + sessionId + "'"));
  }
}
