package org.fencekit.bench;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.runner.IterationType;

/**
 * A store (A) and what it is compared with (B) in one JMH run, their iterations alternating A, B,
 * B, A, A, B, B, A... ({@link Ratio#first}), warmup and measurement alike: both sides are set up
 * once per fork (their trial-level states: the store, the raw driver or the lock library), warmed
 * in turn, and each measurement iteration is one trial of one side, with JMH's timing, thread
 * synchronisation and blackhole. The main job ({@link Comparison}) pairs the iterations' scores
 * into ratios.
 *
 * <ul>
 *   <li>{@link #overRaw}: {@link ClaimCompleteBenchmark}'s claim + complete beside {@link
 *       RawBaselineBenchmark}'s (parameters {@code backend} and {@code baseline});
 *   <li>{@link #overPeer}: the same beside {@link PeerLockBenchmark}'s lock + unlock ({@code
 *       backend} and {@code peer});
 *   <li>{@link #hotOverLock}: {@link HotLock}'s claims won on one hot order beside its locks
 *       acquired on one hot lock ({@code backend} and {@code peer}).
 * </ul>
 *
 * <p>Run (after {@code ./mvnw -q package -DskipTests}); the iterations' scores are in the JSON:
 *
 * <pre>{@code
 * java -cp benchmarks/target/fencekit-benchmarks.jar org.openjdk.jmh.Main 'PairedBenchmark.overRaw$' \
 *     -p backend=SQLITE -p baseline=SQLITE_JDBC -t 4 -f 1 -wi 4 -i 32 -w 200ms -r 200ms \
 *     -rf json -rff paired.json
 * }</pre>
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class PairedBenchmark {

  /** Which side the current iteration measures. */
  @State(Scope.Benchmark)
  public static class Side {
    boolean a;
    private int warmups;
    private int trials;

    /** Picks the side of the coming iteration, before any thread starts it. */
    @Setup(Level.Iteration)
    public void next(IterationParams iteration) {
      a = Ratio.first(iteration.getType() == IterationType.WARMUP ? warmups++ : trials++);
    }
  }

  /**
   * Before each trial, empties the in-heap backends (the memory store and its map): both sides
   * start every trial from no orders, and a long round's heap holds one trial's orders, not all.
   */
  @State(Scope.Benchmark)
  public static class Trial {

    /** Empties the memory store and the raw map; the other backends keep their orders. */
    @Setup(Level.Iteration)
    public void empty(BackendState backend, RawBaselineBenchmark.Driver raw) {
      backend.emptyTheHeap();
      if (raw.driver instanceof RawMemory memory) {
        memory.clear();
      }
    }
  }

  /** A store's claim + complete, or its raw baseline's. */
  @Benchmark
  public Object overRaw(
      Side side,
      Trial trial,
      BackendState backend,
      ClaimCompleteBenchmark.Cursor cursor,
      RawBaselineBenchmark.Session raw) {
    if (side.a) {
      return Orders.claimComplete(backend.store, cursor.nextSessionId());
    }
    raw.claimComplete();
    return raw;
  }

  /** A store's claim + complete, or a peer's lock + unlock. */
  @Benchmark
  public Object overPeer(
      Side side,
      BackendState backend,
      ClaimCompleteBenchmark.Cursor cursor,
      PeerLockBenchmark.Holder peer) {
    if (side.a) {
      return Orders.claimComplete(backend.store, cursor.nextSessionId());
    }
    peer.session.lockUnlock();
    return peer;
  }

  /** A claim won on one hot order, or a lock acquired on one hot lock. */
  @Benchmark
  public Object hotOverLock(
      Side side,
      BackendState backend,
      HotLock.HotOrder hot,
      HotLock.Wins wins,
      HotLock.Contender lock) {
    if (side.a) {
      return HotLock.claimWon(backend.store, hot.order, wins);
    }
    HotLock.lockWon(lock, wins);
    return wins;
  }
}
