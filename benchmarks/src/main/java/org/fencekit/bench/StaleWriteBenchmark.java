package org.fencekit.bench;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.fencekit.store.ClaimId;
import org.fencekit.store.ClaimResult;
import org.fencekit.store.Item;
import org.fencekit.store.OrderStore;
import org.fencekit.store.WriteResult;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Group;
import org.openjdk.jmh.annotations.GroupThreads;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * A stale-write storm against live orders, as a {@code @Group} of four threads: three replaced
 * owners keep sending settles (fail, and complete, which also files an orphan the first time) with
 * tokens that were superseded, while the live owner heartbeats ({@code extend}) with the current
 * token. Every stale write must be refused; one that lands is counted in {@link Storm#landed} (the
 * main job exits 1 on it).
 *
 * <p>The score of {@code staleWrite} is rejected writes per second; {@code heartbeat}'s is the live
 * owner's writes per second under the storm.
 *
 * <p>Run (after {@code ./mvnw -q package -DskipTests}):
 *
 * <pre>{@code
 * java -cp benchmarks/target/fencekit-benchmarks.jar org.openjdk.jmh.Main StaleWriteBenchmark \
 *     -p backend=MEMORY,SQLITE -rf json -rff stale-write.json
 * }</pre>
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class StaleWriteBenchmark {

  /** How many live orders the storm hits. */
  static final int ORDERS = 16;

  /** The live owner's lease: it outlasts the run, so no claim ever changes hands again. */
  static final Duration LIVE_LEASE = Duration.ofHours(1);

  /** The live orders: each with its current token and one superseded token. */
  @State(Scope.Group)
  public static class LiveOrders {
    final String[] sessionIds = new String[ORDERS];
    final ClaimId[] stale = new ClaimId[ORDERS];
    final ClaimId[] current = new ClaimId[ORDERS];
    final Item[] staleItems = new Item[ORDERS];

    /**
     * Claims each order, lets that lease run out (by shifting the store's clock), and claims it
     * again: the first token is now superseded, the second is the live owner's.
     */
    @Setup(Level.Trial)
    public void create(BackendState backend) {
      OrderStore store = backend.store;
      for (int i = 0; i < ORDERS; i++) {
        sessionIds[i] = backend.runPrefix + "live_" + i;
        staleItems[i] = new Item("prov-stale-" + i, null);
        stale[i] = claim(store, sessionIds[i], Duration.ofSeconds(1));
      }
      backend.clock.shift(Duration.ofSeconds(2));
      for (int i = 0; i < ORDERS; i++) {
        current[i] = claim(store, sessionIds[i], LIVE_LEASE);
      }
    }

    private static ClaimId claim(OrderStore store, String sessionId, Duration lease) {
      ClaimResult result = store.claim(Orders.snapshot(sessionId), lease);
      if (!(result instanceof ClaimResult.Claimed claimed)) {
        throw new IllegalStateException("setup could not claim " + sessionId + ": " + result);
      }
      return claimed.claimId();
    }
  }

  /** One thread's cursor over the live orders, and how its writes ended. */
  @State(Scope.Thread)
  @AuxCounters(AuxCounters.Type.OPERATIONS)
  public static class Storm {
    /** Stale writes refused (Superseded), as they must be. */
    public long rejected;

    /** Stale writes that landed: must stay 0. */
    public long landed;

    /** The live owner's heartbeats that landed. */
    public long heartbeats;

    private int next;
    private long writes;

    /** Starts each iteration from zero. */
    @Setup(Level.Iteration)
    public void reset() {
      rejected = 0;
      landed = 0;
      heartbeats = 0;
    }

    int nextOrder() {
      next = (next + 1) % ORDERS;
      return next;
    }
  }

  /** A replaced owner settles with its superseded token: fail, or complete with its item. */
  @Benchmark
  @Group("storm")
  @GroupThreads(3)
  public WriteResult staleWrite(BackendState backend, LiveOrders live, Storm storm) {
    int i = storm.nextOrder();
    WriteResult result =
        (storm.writes++ & 1) == 0
            ? backend.store.fail(live.sessionIds[i], live.stale[i], Orders.ERROR)
            : backend.store.complete(live.sessionIds[i], live.stale[i], live.staleItems[i]);
    if (result instanceof WriteResult.Superseded) {
      storm.rejected++;
    } else {
      storm.landed++;
    }
    return result;
  }

  /** The live owner extends its lease with the current token. */
  @Benchmark
  @Group("storm")
  @GroupThreads(1)
  public WriteResult heartbeat(BackendState backend, LiveOrders live, Storm storm) {
    int i = storm.nextOrder();
    WriteResult result = backend.store.extend(live.sessionIds[i], live.current[i], LIVE_LEASE);
    if (!(result instanceof WriteResult.Written)) {
      throw new IllegalStateException(
          "the live owner's heartbeat on " + live.sessionIds[i] + " was refused: " + result);
    }
    storm.heartbeats++;
    return result;
  }
}
