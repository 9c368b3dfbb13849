package org.fencekit.store.jdbc;

import java.time.Duration;
import java.time.Instant;
import java.util.function.IntSupplier;
import org.fencekit.faults.Fault;
import org.fencekit.faults.FaultRun;
import org.fencekit.history.ManualClock;
import org.fencekit.store.OrderStore;

/**
 * What the fault tests of the stores on a database server ({@link PooledStoreBuilder}) share: a
 * store on the test's own server with 1 s query and connection timeouts and a pool of four, the
 * fault harness's run under load with no violation of checks (a) to (g), named {@code
 * <store>/<fault>} with the fast path on and {@code <store>-locking/<fault>} with it off, and the
 * faults' shapes (a drop repeated six times, a fault injected once). A store's fault test starts
 * its server, says how its store is built and names its faults.
 *
 * @param <S> the store
 */
public abstract class ServerFaultTest<S extends OrderStore> {

  /** The query and connection timeouts of a store under fault. */
  protected static final Duration TIMEOUT = Duration.ofSeconds(1);

  private final String storeName;

  /**
   * @param storeName the store's name in a run's name, {@code postgres}
   */
  protected ServerFaultTest(String storeName) {
    this.storeName = storeName;
  }

  /**
   * @return a store on the test's server (built on {@link #underFault}), its fast path on or off
   */
  protected abstract S store(ManualClock clock, boolean fastPath);

  /**
   * @return {@code builder} creating the tables on {@code jdbcUrl}, with time to spare for a first
   *     connection on a loaded machine: build and close it once before the runs
   */
  protected static <B extends PooledStoreBuilder<B>> B createTables(B builder, String jdbcUrl) {
    return builder.jdbcUrl(jdbcUrl).createSchema(true).connectionTimeout(Duration.ofSeconds(30));
  }

  /**
   * @return {@code builder} on {@code jdbcUrl} at {@code clock}, with {@link #TIMEOUT} as its query
   *     and connection timeouts and a pool of four
   */
  protected static <B extends PooledStoreBuilder<B>> B underFault(
      B builder, String jdbcUrl, ManualClock clock) {
    return builder
        .jdbcUrl(jdbcUrl)
        .clock(clock)
        .queryTimeout(TIMEOUT)
        .connectionTimeout(TIMEOUT)
        .maximumPoolSize(4);
  }

  /**
   * @return a clock at the runs' start
   */
  protected static ManualClock clock() {
    return new ManualClock(Instant.parse("2026-01-01T00:00:00Z"));
  }

  /**
   * @return a fault that drops the store's connections six times, 150 ms apart, and counts them
   */
  protected static Fault sixTimes(IntSupplier drop) {
    return () -> {
      int dropped = 0;
      for (int i = 0; i < 6; i++) {
        dropped += drop.getAsInt();
        Thread.sleep(150);
      }
      return dropped;
    };
  }

  /**
   * @return a fault of one event: {@code fault}, which returns once it is healed
   */
  protected static Fault once(Runnable fault) {
    return () -> {
      fault.run();
      return 1;
    };
  }

  /** Runs {@code inject} under load on a store of its own and asserts no violation. */
  protected final void assertNoViolations(String fault, boolean fastPath, Fault inject) {
    ManualClock clock = clock();
    try (S store = store(clock, fastPath)) {
      FaultRun.builder((fastPath ? storeName : storeName + "-locking") + "/" + fault, store, clock)
          .fault(inject)
          .run()
          .assertNoViolations();
    }
  }
}
