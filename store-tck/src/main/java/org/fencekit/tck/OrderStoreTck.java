package org.fencekit.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.fencekit.store.ClaimId;
import org.fencekit.store.ClaimResult;
import org.fencekit.store.Item;
import org.fencekit.store.OrderRecord;
import org.fencekit.store.OrderSnapshot;
import org.fencekit.store.OrderStatus;
import org.fencekit.store.OrderStore;
import org.fencekit.store.WriteResult;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The technology compatibility kit: the behaviour of {@code CONTRACT.md} as a JUnit 5 suite that
 * every {@link OrderStore} must pass.
 *
 * <p>Use it by adding this module with test scope and writing one class:
 *
 * <pre>{@code
 * class MyOrderStoreTckTest extends OrderStoreTck {
 *   @Override
 *   protected OrderStore newStore(TestClock clock) {
 *     return new MyOrderStore(dataSource, clock);
 *   }
 *
 *   @Override   // optional: a second, independent instance over the same data
 *   protected OrderStore newPeerStore(TestClock clock) {
 *     return new MyOrderStore(anotherDataSource, clock);
 *   }
 * }
 * }</pre>
 *
 * <p>Each test gets a fresh {@link TestClock} and a fresh store from {@link #newStore}; every
 * store the suite obtained is closed after the test. Session ids carry a random per-run prefix
 * and a per-test number, so stores over a shared database never see another test's orders,
 * from this run or an earlier one: {@code newStore} need not empty the database.
 *
 * <p>The rules are grouped by topic in {@link Nested} classes, which a subclass inherits. Every
 * assertion message names the order, the token presented, the current token and the status
 * found. Tests that need two instances over the same data are skipped (not failed) unless
 * {@link #newPeerStore} is overridden.
 */
public abstract class OrderStoreTck {

  /** The lease of the seed tests: two minutes, as in the incident. */
  protected static final Duration LEASE = Duration.ofMinutes(2);

  /** Random per run, so session ids never collide across runs over one database. */
  private static final String RUN = ClaimId.newNonce().substring(0, 10);
  private static final AtomicLong SEQUENCE = new AtomicLong();

  /** The item the customer paid for in the seed tests. */
  private static final Item ESIM = new Item("prov-esim-1", "LPA:1$smdp.example$ACTIVATION-1");
  /** An item a second, slower purchase bought. */
  private static final Item ESIM_2 = new Item("prov-esim-2", "LPA:1$smdp.example$ACTIVATION-2");

  private final List<OrderStore> opened = new ArrayList<>();
  /** The clock of the current test; the store and its peer share it. */
  private TestClock clock;
  /** The store of the current test. */
  private OrderStore store;

  /** For subclasses. */
  protected OrderStoreTck() {}

  /**
   * A new store, empty or holding only other tests' orders, whose leases run on {@code clock}.
   * Called once per test; the suite closes it after the test.
   *
   * @param clock the test's clock; the store must read time only from it
   * @throws Exception if the store cannot be built (the test then errors)
   */
  protected abstract OrderStore newStore(TestClock clock) throws Exception;

  /**
   * A second, independent instance over the same data as the last {@link #newStore} (another
   * pool, connection or client), on the same {@code clock}; or {@code null} if the store cannot
   * share data across instances, which skips the cross-instance tests. The suite closes it after
   * the test.
   *
   * @param clock the same clock the first store was given
   * @throws Exception if the store cannot be built (the test then errors)
   */
  protected OrderStore newPeerStore(TestClock clock) throws Exception {
    return null;
  }

  /** Gives each test a clock at {@link TestClock#START} and a store on it. */
  @BeforeEach
  final void openStore() throws Exception {
    clock = new TestClock();
    store = track(newStore(clock), "newStore");
  }

  /** Closes every store the test obtained, newest first, and reports the first failure. */
  @AfterEach
  final void closeStores() {
    RuntimeException failure = null;
    for (int i = opened.size() - 1; i >= 0; i--) {
      try {
        opened.get(i).close();
      } catch (RuntimeException e) {
        if (failure == null) {
          failure = e;
        } else {
          failure.addSuppressed(e);
        }
      }
    }
    opened.clear();
    if (failure != null) {
      throw failure;
    }
  }

  private OrderStore track(OrderStore created, String method) {
    assertNotNull(created, () -> getClass().getName() + "." + method + "(clock) returned null");
    opened.add(created);
    return created;
  }

  /**
   * The peer store of this test, or a skipped test if {@link #newPeerStore} is not overridden.
   */
  private OrderStore peer() throws Exception {
    OrderStore peer = newPeerStore(clock);
    Assumptions.assumeTrue(peer != null, () -> "cross-instance test skipped: "
        + getClass().getName() + " does not override newPeerStore(TestClock); override it to"
        + " return a second, independent instance over the same data (another pool, connection"
        + " or client) to run this test");
    return track(peer, "newPeerStore");
  }

  // ---------------------------------------------------------------- helpers

  /** A session id unique to this test and this run; {@code label} helps read failures. */
  static String sid(String label) {
    return "tck-" + RUN + "-" + SEQUENCE.incrementAndGet() + "-" + label;
  }

  private static OrderSnapshot snapshot(String sessionId) {
    return new OrderSnapshot(sessionId, "esim-eu-5gb", 1, "ada@example.com", 1999, "usd");
  }

  /**
   * Formats what a failing implementer needs: the order, the token presented, the current token
   * and the status found (from {@code found}, or "no record").
   */
  static String describe(String sessionId, ClaimId presented, OrderRecord found) {
    StringBuilder out = new StringBuilder()
        .append("order '").append(sessionId).append("', token presented ").append(presented);
    if (found == null) {
      return out.append(", no record found").toString();
    }
    return out.append(", current token ").append(found.claimId())
        .append(", status found ").append(found.status())
        .append(" (fence ").append(found.fence())
        .append(", settledBy ").append(found.settledBy())
        .append(", claimedAt ").append(found.claimedAt())
        .append(", leaseExpiresAt ").append(found.leaseExpiresAt())
        .append(", item ").append(found.item())
        .append(", lastError ").append(found.lastError())
        .append(", updatedAt ").append(found.updatedAt())
        .append(')').toString();
  }

  /** {@link #describe} with the record read from {@code from} now. */
  private String describe(OrderStore from, String sessionId, ClaimId presented) {
    OrderRecord found;
    try {
      found = from.get(sessionId).orElse(null);
    } catch (RuntimeException e) {
      return "order '" + sessionId + "', token presented " + presented
          + ", and reading the order failed: " + e;
    }
    return describe(sessionId, presented, found) + " at " + clock.instant();
  }

  /** A lazy assertion message: {@code expectation}, then the order as the store holds it. */
  private Supplier<String> says(String expectation, String sessionId, ClaimId presented) {
    return () -> expectation + "; " + describe(store, sessionId, presented);
  }

  /** A lazy assertion message from a record already at hand (no read). */
  private static Supplier<String> says(
      String expectation, String sessionId, ClaimId presented, OrderRecord found) {
    return () -> expectation + "; " + describe(sessionId, presented, found);
  }

  private ClaimId claimed(OrderStore from, String sessionId) {
    return claimed(from, snapshot(sessionId), LEASE);
  }

  private ClaimId claimed(OrderStore from, OrderSnapshot snapshot, Duration lease) {
    ClaimResult result = from.claim(snapshot, lease);
    if (!(result instanceof ClaimResult.Claimed)) {
      fail(says("claim must answer Claimed but answered " + result.getClass().getSimpleName(),
          snapshot.sessionId(), null, result.record()).get());
    }
    return ((ClaimResult.Claimed) result).claimId();
  }

  private ClaimId claimed(String sessionId) {
    return claimed(store, sessionId);
  }

  private static OrderRecord written(WriteResult result, String what, String sessionId, ClaimId presented) {
    assertInstanceOf(WriteResult.Written.class, result, says(
        what + " must answer Written but answered " + result.getClass().getSimpleName(),
        sessionId, presented, result.record()));
    return result.record();
  }

  private static OrderRecord superseded(WriteResult result, String what, String sessionId, ClaimId presented) {
    assertInstanceOf(WriteResult.Superseded.class, result, says(
        what + " must answer Superseded but answered " + result.getClass().getSimpleName(),
        sessionId, presented, result.record()));
    return result.record();
  }

  private OrderRecord record(OrderStore from, String sessionId, ClaimId presented) {
    Optional<OrderRecord> found = from.get(sessionId);
    assertTrue(found.isPresent(), says("get must find the order", sessionId, presented, null));
    return found.get();
  }

  private OrderRecord record(String sessionId, ClaimId presented) {
    return record(store, sessionId, presented);
  }

  // ---------------------------------------------------------------- the incident

  /**
   * Attempt A claims and overruns its lease; attempt B re-claims and provisions; A's late fail
   * must be superseded, the order must stay provisioned with B's item, and it must not be
   * claimable again (a claimable order is a third charge waiting for the next retry).
   *
   * <p>If this fails, check that fail compares the token presented with the record's current
   * claim before writing, and that claim answers Provisioned for a PROVISIONED order.
   */
  @Test
  @DisplayName("a stale failure cannot undo a provisioned order")
  void staleFailureCannotUndoProvisioned() {
    String sid = sid("stale-fail");
    ClaimId slow = claimed(sid);
    clock.advance(LEASE);
    ClaimId fresh = claimed(sid);
    written(store.complete(sid, fresh, ESIM), "the fresh attempt's complete", sid, fresh);

    superseded(store.fail(sid, slow, "provider outage"), "the stale fail", sid, slow);

    OrderRecord record = record(sid, slow);
    assertEquals(OrderStatus.PROVISIONED, record.status(),
        says("the customer's eSIM must survive a stale fail", sid, slow, record));
    assertEquals(ESIM, record.item(), says("the item must be the fresh attempt's", sid, slow, record));
    ClaimResult again = store.claim(snapshot(sid), LEASE);
    assertInstanceOf(ClaimResult.Provisioned.class, again, says(
        "the order must not be re-opened for a third purchase: claim must answer Provisioned",
        sid, null, again.record()));
  }
}
