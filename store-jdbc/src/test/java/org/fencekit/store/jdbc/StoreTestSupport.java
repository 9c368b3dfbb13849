package org.fencekit.store.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.fencekit.store.ClaimId;
import org.fencekit.store.ClaimResult;
import org.fencekit.store.Item;
import org.fencekit.store.OrderRecord;
import org.fencekit.store.OrderSnapshot;
import org.fencekit.store.OrderStore;
import org.fencekit.tck.TestClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * What a store's tests beside the TCK share, whatever the store: a fresh {@link TestClock} per
 * test, stores and connections closed after each test (in reverse order of tracking), and small
 * helpers to make orders. A store's support class adds where its tests' database or schema is and
 * how its store is built.
 */
public abstract class StoreTestSupport {

  /** The lease of a claim. */
  protected static final Duration LEASE = Duration.ofMinutes(2);

  /** An item a provider handed out. */
  protected static final Item ITEM = new Item("prov-1", "LPA:1$smdp.example$A");

  /** Numbers the orders {@link #sid} names. */
  protected static final AtomicInteger ORDERS = new AtomicInteger();

  /** Tracked from any thread ({@link #startAtOnce}). */
  private final List<AutoCloseable> opened = Collections.synchronizedList(new ArrayList<>());

  /** This test's clock. */
  protected TestClock clock;

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
  protected <T extends AutoCloseable> T track(T closeable) {
    opened.add(closeable);
    return closeable;
  }

  /**
   * Builds {@code starters} stores at once ({@link #atOnce}), each closed after the test; every
   * build must succeed.
   *
   * @return the stores built
   */
  protected <S extends OrderStore> List<S> startAtOnce(int starters, Supplier<S> build)
      throws InterruptedException {
    return atOnce(starters, () -> track(build.get()), "every store must start");
  }

  /**
   * Runs {@code call} on {@code callers} threads released together (waiting up to 30 s for each
   * other, then up to a minute each for the call); every call must return.
   *
   * @param failed the assertion's message if a call threw
   * @return the calls' results, in the order they returned
   */
  protected static <T> List<T> atOnce(int callers, Supplier<T> call, String failed)
      throws InterruptedException {
    List<Thread> threads = new ArrayList<>();
    List<Throwable> failures = new CopyOnWriteArrayList<>();
    List<T> results = new CopyOnWriteArrayList<>();
    CyclicBarrier start = new CyclicBarrier(callers);
    for (int i = 0; i < callers; i++) {
      Thread thread =
          new Thread(
              () -> {
                try {
                  start.await(30, TimeUnit.SECONDS);
                  results.add(call.get());
                } catch (Throwable t) {
                  failures.add(t);
                }
              });
      threads.add(thread);
      thread.start();
    }
    for (Thread thread : threads) {
      thread.join(60_000);
    }
    assertEquals(List.of(), failures, failed);
    assertEquals(callers, results.size());
    return results;
  }

  /**
   * @return a session id no other test uses: {@code cs_<label>_<n>}
   */
  protected static String sid(String label) {
    return "cs_" + label + "_" + ORDERS.incrementAndGet();
  }

  /**
   * @return an order of one item for {@code sessionId}
   */
  protected static OrderSnapshot snapshot(String sessionId) {
    return new OrderSnapshot(sessionId, "esim-eu-5gb", 1, "ada@example.com", 1999, "usd");
  }

  /**
   * @return the claim of {@code sessionId}'s order, which must be claimed
   */
  protected static ClaimId claimed(OrderStore store, String sessionId) {
    ClaimResult result = store.claim(snapshot(sessionId), LEASE);
    assertInstanceOf(
        ClaimResult.Claimed.class, result, () -> "claim of '" + sessionId + "': " + result);
    return ((ClaimResult.Claimed) result).claimId();
  }

  /**
   * @return {@code sessionId}'s order, which must be there
   */
  protected static OrderRecord record(OrderStore store, String sessionId) {
    return store
        .get(sessionId)
        .orElseThrow(() -> new AssertionError("no order '" + sessionId + "'"));
  }
}
