package org.fencekit.bench;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.fencekit.store.WriteResult;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Uncontended: each thread claims a fresh order and completes it, the happy path of a webhook
 * handler. One operation is one claim plus one complete (two transactions, or two scripts). The
 * throughput mode gives operations per second; the sample mode the latency distribution (p50, p99,
 * p99.9) of the pair.
 *
 * <p>Run (after {@code ./mvnw -q package -DskipTests}):
 *
 * <pre>{@code
 * java -cp benchmarks/target/fencekit-benchmarks.jar org.openjdk.jmh.Main ClaimCompleteBenchmark \
 *     -p backend=MEMORY,SQLITE -t 4 -prof gc -rf json -rff claim-complete.json
 * }</pre>
 *
 * Server backends need their variable set ({@link StoreType}). Compare with the same work done
 * through the bare driver: {@link RawBaselineBenchmark}.
 */
@BenchmarkMode({Mode.Throughput, Mode.SampleTime})
@OutputTimeUnit(TimeUnit.SECONDS)
public class ClaimCompleteBenchmark {

  /** A lease long enough that no fresh order is ever taken over during the run. */
  static final Duration LEASE = Duration.ofMinutes(5);

  /** Each thread's own sequence of fresh session ids. */
  @State(Scope.Thread)
  public static class Cursor {
    private static final AtomicInteger THREADS = new AtomicInteger();
    private String prefix;
    private long next;

    /** Takes a thread number for this run's ids. */
    @Setup
    public void start(BackendState backend) {
      prefix = backend.runPrefix + THREADS.getAndIncrement() + "_";
    }

    String nextSessionId() {
      return prefix + next++;
    }
  }

  /** Claims a fresh order and completes it; fails the run if either is refused. */
  @Benchmark
  public WriteResult claimComplete(BackendState backend, Cursor cursor) {
    return Orders.claimComplete(backend.store, cursor.nextSessionId());
  }
}
