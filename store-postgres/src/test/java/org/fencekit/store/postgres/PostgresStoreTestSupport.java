package org.fencekit.store.postgres;

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
import org.fencekit.testsupport.TestPostgres;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * What the store tests beside the TCK share: a schema of their own on the test server (made before
 * a class's tests, dropped after them; test classes run one at a time, JUnit's default), a fresh
 * {@link TestClock} per test, stores and connections closed after each test, and small helpers to
 * make orders.
 */
abstract class PostgresStoreTestSupport {

  static final Duration LEASE = Duration.ofMinutes(2);
  static final Item ITEM = new Item("prov-1", "LPA:1$smdp.example$A");
  static final AtomicInteger ORDERS = new AtomicInteger();

  /** Each test class's own schema; every test is skipped (or fails) without a server. */
  @RegisterExtension static final TestPostgres.ClassSchema schema = TestPostgres.schemaPerClass();

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

  /** A store with its own pool of two in this class's schema, on the test clock. */
  PostgresOrderStore.Builder pooled() {
    return PostgresOrderStore.builder()
        .jdbcUrl(TestPostgres.jdbcUrl())
        .maximumPoolSize(2)
        .schema(schema.name())
        .createSchema(true)
        .clock(clock);
  }

  /**
   * A store over an unpooled DataSource whose sessions run SERIALIZABLE ({@code
   * default_transaction_isolation}), in this class's schema, on the test clock.
   */
  PostgresOrderStore.Builder serializable() {
    PGSimpleDataSource serializable = simpleDataSource();
    serializable.setOptions("-c default_transaction_isolation=serializable");
    return PostgresOrderStore.builder()
        .dataSource(serializable)
        .schema(schema.name())
        .createSchema(true)
        .clock(clock);
  }

  PostgresOrderStore store(PostgresOrderStore.Builder builder) {
    return track(builder.build());
  }

  static PGSimpleDataSource simpleDataSource() {
    PGSimpleDataSource dataSource = new PGSimpleDataSource();
    dataSource.setURL(TestPostgres.jdbcUrl());
    dataSource.setPrepareThreshold(0);
    return dataSource;
  }

  static String sid(String label) {
    return "cs_" + label + "_" + ORDERS.incrementAndGet();
  }

  static OrderSnapshot snapshot(String sessionId) {
    return new OrderSnapshot(sessionId, "esim-eu-5gb", 1, "ada@example.com", 1999, "usd");
  }

  static ClaimId claimed(PostgresOrderStore store, String sessionId) {
    ClaimResult result = store.claim(snapshot(sessionId), LEASE);
    assertInstanceOf(
        ClaimResult.Claimed.class, result, () -> "claim of '" + sessionId + "': " + result);
    return ((ClaimResult.Claimed) result).claimId();
  }

  static OrderRecord record(PostgresOrderStore store, String sessionId) {
    return store
        .get(sessionId)
        .orElseThrow(() -> new AssertionError("no order '" + sessionId + "'"));
  }
}
