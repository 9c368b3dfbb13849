package org.fencekit.bench;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The raw baselines: {@link ClaimCompleteBenchmark}'s claim-then-complete of fresh orders done with
 * the same statements or scripts through the bare driver ({@link RawBaseline}); the main job pairs
 * its states with the store's in one fork ({@link PairedBenchmark#overRaw}) for "store / raw".
 *
 * <p>Run (after {@code ./mvnw -q package -DskipTests}):
 *
 * <pre>{@code
 * java -cp benchmarks/target/fencekit-benchmarks.jar org.openjdk.jmh.Main RawBaselineBenchmark \
 *     -p baseline=MEMORY_MAP,SQLITE_JDBC -t 4 -rf json -rff raw.json
 * }</pre>
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class RawBaselineBenchmark {

  /** The driver, shared by the threads of a run. */
  @State(Scope.Benchmark)
  public static class Driver {

    /** Which bare driver; every constant of {@link RawBaseline} unless {@code -p baseline=...}. */
    @Param public RawBaseline baseline;

    RawDriver driver;
    String runPrefix;
    private Namespace namespace;

    /**
     * Opens the driver in a fresh namespace (creating the tables through the store, where there are
     * tables); fails naming the variable of a server that is not set.
     */
    @Setup(Level.Trial)
    public void open() {
      runPrefix = Orders.newRunPrefix();
      namespace = Namespace.fresh();
      driver = baseline.open(namespace, Server.environment());
    }

    /** Closes the driver and drops its namespace. */
    @TearDown(Level.Trial)
    public void close() {
      Namespace.closeThenDrop(driver, namespace, baseline.store().server());
    }
  }

  /** One thread's session and its sequence of fresh session ids. */
  @State(Scope.Thread)
  public static class Session {
    private static final AtomicInteger THREADS = new AtomicInteger();
    RawDriver.Session session;
    private String prefix;
    private long next;

    /** Opens this thread's session. */
    @Setup(Level.Trial)
    public void open(Driver driver) {
      prefix = driver.runPrefix + THREADS.getAndIncrement() + "_";
      session = driver.driver.session();
    }

    /** Closes it. */
    @TearDown(Level.Trial)
    public void close() {
      session.close();
    }

    /** Claims a fresh order and completes it through the bare driver. */
    void claimComplete() {
      session.claimComplete(prefix + next++, System.currentTimeMillis());
    }
  }

  /** Claims a fresh order and completes it through the bare driver. */
  @Benchmark
  public void claimComplete(Session session) {
    session.claimComplete();
  }
}
