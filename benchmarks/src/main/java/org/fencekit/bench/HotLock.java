package org.fencekit.bench;

import org.fencekit.store.ClaimResult;
import org.fencekit.store.OrderSnapshot;
import org.fencekit.store.OrderStore;
import org.fencekit.store.WriteResult;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * One hot order against one hot lock, the states and operations of {@link
 * PairedBenchmark#hotOverLock}: every thread fights over the same order ({@link #claimWon}), or
 * over the same lock of a lock library ({@link #lockWon}), and the figure compared is the score:
 * wins per second, claims granted against locks acquired. One operation is one win.
 *
 * <ul>
 *   <li>{@link #claimWon}: a claim of the one order, with a lease no call outlives ({@link
 *       ClaimCompleteBenchmark#LEASE}, so a win is never a take-over); the winner settles at once,
 *       with a fail (the order is claimable again) and every {@value
 *       HotOrderBenchmark#COMPLETE_EVERY}th win with a complete, after which a fresh order is the
 *       hot one, as in {@link HotOrderBenchmark}. A loser is told the order is in flight (or, just
 *       after a complete, provisioned) and tries again at once, until it wins.
 *   <li>{@link #lockWon}: one attempt at the library's one lock, without waiting ({@link
 *       PeerLock#hot()}: for ShedLock's JDBC provider an {@code UPDATE ... WHERE name = ? AND
 *       lock_until <= now}); the winner unlocks at once, a loser tries again at once, until it
 *       wins.
 * </ul>
 *
 * <p>{@link Wins#lost} counts the attempts that lost, per second. With one thread every attempt
 * wins.
 */
public final class HotLock {

  private HotLock() {}

  /** The one order every thread fights over; a fresh one after each complete. */
  @State(Scope.Benchmark)
  public static class HotOrder {
    HotSlots order;

    /** Creates the first order's snapshot (its first claim creates the order). */
    @Setup(Level.Trial)
    public void create(BackendState backend) {
      order = new HotSlots(backend.runPrefix + "hotlock_", 1);
    }
  }

  /** The attempts one thread lost, reported per second (the wins are the score). */
  @State(Scope.Thread)
  @AuxCounters(AuxCounters.Type.OPERATIONS)
  public static class Wins {
    /**
     * Claims refused (in flight, or provisioned just now), or lock attempts that found the lock
     * held by another thread.
     */
    public long lost;

    private long streak;

    /** Starts each iteration from zero. */
    @Setup(Level.Iteration)
    public void reset() {
      lost = 0;
    }
  }

  /** One thread's attempts on the library's one lock. */
  @State(Scope.Thread)
  public static class Contender {
    PeerLock.Attempt attempt;

    /** Takes the shared lock's handle. */
    @Setup(Level.Trial)
    public void open(PeerLockBenchmark.Library library) {
      attempt = library.lock.hot();
    }
  }

  /**
   * One claim won on {@code store}: claims of the order in {@code hot}'s one slot until one is
   * granted (each refusal counted in {@link Wins#lost}), then the winner's settle.
   *
   * @throws IllegalStateException if the winner's settle is refused (nobody can take over a lease
   *     this long, so that would be a bug)
   */
  static WriteResult claimWon(OrderStore store, HotSlots hot, Wins wins) {
    while (true) {
      OrderSnapshot order = hot.at(0);
      ClaimResult claim = store.claim(order, ClaimCompleteBenchmark.LEASE);
      if (claim instanceof ClaimResult.Claimed won) {
        boolean complete = ++wins.streak % HotOrderBenchmark.COMPLETE_EVERY == 0;
        WriteResult settle = Orders.settle(store, order.sessionId(), won.claimId(), complete);
        if (!(settle instanceof WriteResult.Written)) {
          throw new IllegalStateException(
              "the winner's settle of hot order " + order.sessionId() + " was refused: " + settle);
        }
        if (complete) {
          hot.replace(0, order);
        }
        return settle;
      }
      wins.lost++;
      if (claim instanceof ClaimResult.Provisioned) {
        hot.replace(0, order);
      }
    }
  }

  /** One lock acquired: attempts at the library's one lock until one wins, then the unlock. */
  static void lockWon(Contender contender, Wins wins) {
    while (!contender.attempt.tryLockUnlock()) {
      wins.lost++;
    }
  }
}
