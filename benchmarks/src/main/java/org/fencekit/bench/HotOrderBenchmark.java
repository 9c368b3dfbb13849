package org.fencekit.bench;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.fencekit.store.ClaimResult;
import org.fencekit.store.OrderSnapshot;
import org.fencekit.store.WriteResult;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Hot orders: every thread fights over the same {@code orders} orders (K = 1 or 16), as when a
 * provider's retries and a user's refreshes pile onto one checkout. A call claims a random one of
 * them; the winner settles at once, with a fail (so the order is claimable again) and every eighth
 * time with a complete, after which the order is replaced by a fresh one. The lease is shorter than
 * a round trip under load ({@code leaseMillis}), so claims also take over orders whose owner is
 * slow, and that owner's settle is then superseded: the incident, at speed.
 *
 * <p>The score is calls per second; {@link Outcomes} says how each call ended, per second: claimed,
 * in-flight (told to retry), provisioned (the order was already done), written (a settle landed),
 * superseded (a settle was refused because a newer claim took over). Threads (T = 1, 4, 16) are
 * JMH's {@code -t}.
 *
 * <p>Run (after {@code ./mvnw -q package -DskipTests}):
 *
 * <pre>{@code
 * java -cp benchmarks/target/fencekit-benchmarks.jar org.openjdk.jmh.Main HotOrderBenchmark \
 *     -p backend=MEMORY,SQLITE -p orders=1,16 -t 16 -rf json -rff hot-order.json
 * }</pre>
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class HotOrderBenchmark {

  /** How many wins in a row settle with fail before one settles with complete. */
  static final int COMPLETE_EVERY = 8;

  /** The K orders every thread fights over. */
  @State(Scope.Benchmark)
  public static class HotOrders {

    /** How many orders the threads share (K). */
    @Param({"1", "16"})
    public int orders;

    /**
     * The lease each claim asks for, in milliseconds: longer than a settle on an idle store (so a
     * claim that lands while the winner settles is told InFlight), shorter than the queueing under
     * 16 threads on a server (so slow owners are taken over and their settles superseded).
     */
    @Param({"20"})
    public long leaseMillis;

    HotSlots slots;
    Duration lease;

    /** Creates the K orders' snapshots (the first claim creates the orders themselves). */
    @Setup(Level.Trial)
    public void create(BackendState backend) {
      slots = new HotSlots(backend.runPrefix + "hot_", orders);
      lease = Duration.ofMillis(leaseMillis);
    }

    int pick() {
      return orders == 1 ? 0 : ThreadLocalRandom.current().nextInt(orders);
    }
  }

  /** How the calls of one thread ended, reported per second. */
  @State(Scope.Thread)
  @AuxCounters(AuxCounters.Type.OPERATIONS)
  public static class Outcomes {
    /** Claims granted. */
    public long claimed;

    /** Claims refused because another thread's lease was live. */
    public long inFlight;

    /** Claims refused because the order was provisioned already. */
    public long provisioned;

    /** Settles (fail or complete) that landed. */
    public long written;

    /** Settles refused because a newer claim had taken the order over. */
    public long superseded;

    private long wins;

    /** Starts each iteration from zero. */
    @Setup(Level.Iteration)
    public void reset() {
      claimed = 0;
      inFlight = 0;
      provisioned = 0;
      written = 0;
      superseded = 0;
    }
  }

  /** One call: claim a hot order; if won, settle it. */
  @Benchmark
  public Object claimAndSettle(BackendState backend, HotOrders hot, Outcomes outcomes) {
    int slot = hot.pick();
    OrderSnapshot order = hot.slots.at(slot);
    ClaimResult claim = backend.store.claim(order, hot.lease);
    if (claim instanceof ClaimResult.Claimed won) {
      outcomes.claimed++;
      boolean complete = ++outcomes.wins % COMPLETE_EVERY == 0;
      WriteResult settle = Orders.settle(backend.store, order.sessionId(), won.claimId(), complete);
      if (settle instanceof WriteResult.Written) {
        outcomes.written++;
        if (complete) {
          hot.slots.replace(slot, order);
        }
      } else {
        outcomes.superseded++;
      }
      return settle;
    }
    if (claim instanceof ClaimResult.InFlight) {
      outcomes.inFlight++;
    } else {
      outcomes.provisioned++;
      hot.slots.replace(slot, order);
    }
    return claim;
  }
}
