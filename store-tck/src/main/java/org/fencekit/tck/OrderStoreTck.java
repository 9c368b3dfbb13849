package org.fencekit.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.fencekit.store.ClaimId;
import org.fencekit.store.ClaimResult;
import org.fencekit.store.Item;
import org.fencekit.store.OrderRecord;
import org.fencekit.store.OrderSnapshot;
import org.fencekit.store.OrderStatus;
import org.fencekit.store.OrderStore;
import org.fencekit.store.Orphan;
import org.fencekit.store.UnknownOrderException;
import org.fencekit.store.Validate;
import org.fencekit.store.WriteResult;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.opentest4j.TestAbortedException;

/**
 * The technology compatibility kit: the behaviour of the store contract ({@code CONTRACT.md}) as a
 * JUnit 5 suite every {@link OrderStore} must pass.
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
 * <p>Each test gets a fresh {@link TestClock} and a fresh store from {@link #newStore}, made on the
 * test's first use of it (after the subclass's own {@code @BeforeEach}); every store the suite
 * obtained is closed after the test. Session ids carry a random per-run prefix and a per-test
 * number, so stores over a shared database never see another test's orders, from this run or an
 * earlier one: {@code newStore} need not empty the database.
 *
 * <p>The rules are plain test methods of this class (not {@code @Nested} classes: Maven Surefire
 * filters out nested classes inherited from a base class, so they would silently not run). Give
 * each configuration of one backend its own top-level test class (subclasses of one abstract class
 * that extends this one): Surefire's summary merges the tests of one top-level class by method
 * name, so {@code @Nested} configurations would be counted once when one of them skips or fails.
 * Each test's display name states its rule; each rule's javadoc ends with what to check when it
 * fails; every assertion message names the order, the token presented, the current token and the
 * status found. Tests that need two instances over the same data are skipped (not failed) unless
 * {@link #newPeerStore} is overridden.
 *
 * <p>The concurrency tests use real threads; their sizes are protected methods a subclass may
 * shrink or grow. The randomized tests print their seed on failure; run again with {@code
 * -Dfencekit.tck.seed=<seed>} to make the same choices (the interleaving of threads is the
 * scheduler's and cannot be replayed).
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

  /** A third purchase. */
  private static final Item ESIM_3 = new Item("prov-esim-3", null);

  private final List<OrderStore> opened = new ArrayList<>();

  /** The clock of the current test; the store and its peer share it. */
  private TestClock clock;

  /** The store of the current test, made on first use by {@link #store()}. */
  private OrderStore store;

  /** For subclasses. */
  protected OrderStoreTck() {}

  /**
   * A new store, empty or holding only other tests' orders, whose leases run on {@code clock}.
   * Called once per test, on the test's first use of the store (so after the subclass's own
   * {@code @BeforeEach} methods); the suite closes it after the test.
   *
   * @param clock the test's clock; the store must read time only from it
   * @throws Exception if the store cannot be built (the test then errors)
   */
  protected abstract OrderStore newStore(TestClock clock) throws Exception;

  /**
   * A second, independent instance over the same data as the last {@link #newStore} (another pool,
   * connection or client), on the same {@code clock}; or {@code null} if the store cannot share
   * data across instances, which skips the cross-instance tests. The suite closes it after the
   * test.
   *
   * @param clock the same clock the first store was given
   * @throws Exception if the store cannot be built (the test then errors)
   */
  protected OrderStore newPeerStore(TestClock clock) throws Exception {
    return null;
  }

  /** Threads that race to claim one order in the claim races. Default 16. */
  protected int raceThreads() {
    return 16;
  }

  /** Threads of the many-orders stress test. Default 8. */
  protected int stressThreads() {
    return 8;
  }

  /** Orders of the many-orders stress test; about six calls are made per order. Default 240. */
  protected int stressOrders() {
    return 240;
  }

  /**
   * Randomized histories the linearizability tests check (each: 4 threads, 3 orders, 6 rounds of 3
   * calls per thread). Default 4.
   */
  protected int linearizabilityHistories() {
    return 4;
  }

  /**
   * The seed of the randomized tests: the system property {@code fencekit.tck.seed} if set, else a
   * new random one. Printed on failure.
   */
  protected long seed() {
    Long fixed = Long.getLong("fencekit.tck.seed");
    return fixed != null ? fixed : new SplittableRandom().nextLong();
  }

  /**
   * Gives each test a clock at {@link TestClock#START}. The store is made on first use, so a
   * subclass's own {@code @BeforeEach} methods (which JUnit runs after this one) have run before
   * {@link #newStore} is called.
   */
  @BeforeEach
  final void startClock() {
    clock = new TestClock();
    store = null;
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

  /** The test's store, made by {@link #newStore} on first use. */
  private OrderStore store() {
    if (store == null) {
      try {
        store = track(newStore(clock), "newStore");
      } catch (RuntimeException | Error e) {
        throw e;
      } catch (Exception e) {
        throw new IllegalStateException(getClass().getName() + ".newStore(clock) failed: " + e, e);
      }
    }
    return store;
  }

  private OrderStore track(OrderStore created, String method) {
    assertNotNull(created, () -> getClass().getName() + "." + method + "(clock) returned null");
    opened.add(created);
    return created;
  }

  /** The peer store of this test; skips the test if {@link #newPeerStore} is not overridden. */
  private OrderStore peer() throws Exception {
    store(); // the peer shares the data of the last newStore
    OrderStore peer = newPeerStore(clock);
    Assumptions.assumeTrue(
        peer != null,
        () ->
            "cross-instance test skipped: "
                + getClass().getName()
                + " does not override newPeerStore(TestClock); override it to"
                + " return a second, independent instance over the same data (another pool, connection"
                + " or client) to run this test");
    return track(peer, "newPeerStore");
  }

  // ================================================================ helpers

  /** A session id unique to this test and this run; {@code label} helps read failures. */
  static String sid(String label) {
    return "tck-" + RUN + "-" + SEQUENCE.incrementAndGet() + "-" + label;
  }

  static OrderSnapshot snapshot(String sessionId) {
    return new OrderSnapshot(sessionId, "esim-eu-5gb", 1, "ada@example.com", 1999, "usd");
  }

  /**
   * Formats what a failing implementer needs: the order, the token presented, the current token and
   * the status found (from {@code found}, or "no record").
   */
  static String describe(String sessionId, ClaimId presented, OrderRecord found) {
    StringBuilder out =
        new StringBuilder()
            .append("order '")
            .append(sessionId)
            .append("', token presented ")
            .append(presented);
    if (found == null) {
      return out.append(", no record found").toString();
    }
    return out.append(", current token ")
        .append(found.claimId())
        .append(", status found ")
        .append(found.status())
        .append(" (fence ")
        .append(found.fence())
        .append(", settledBy ")
        .append(found.settledBy())
        .append(", claimedAt ")
        .append(found.claimedAt())
        .append(", leaseExpiresAt ")
        .append(found.leaseExpiresAt())
        .append(", item ")
        .append(found.item())
        .append(", lastError ")
        .append(found.lastError())
        .append(", updatedAt ")
        .append(found.updatedAt())
        .append(')')
        .toString();
  }

  /** {@link #describe} with the record read from {@code from} now, and the clock. */
  private String describe(OrderStore from, String sessionId, ClaimId presented) {
    OrderRecord found;
    try {
      found = from.get(sessionId).orElse(null);
    } catch (RuntimeException e) {
      return "order '"
          + sessionId
          + "', token presented "
          + presented
          + ", and reading the order failed: "
          + e;
    }
    return describe(sessionId, presented, found) + ", clock at " + clock.instant();
  }

  /** A lazy assertion message: {@code expectation}, then the order as the store holds it now. */
  private Supplier<String> says(String expectation, String sessionId, ClaimId presented) {
    return () -> expectation + "; " + describe(store(), sessionId, presented);
  }

  /** A lazy assertion message from a record at hand. */
  private static Supplier<String> says(
      String expectation, String sessionId, ClaimId presented, OrderRecord found) {
    return () -> expectation + "; " + describe(sessionId, presented, found);
  }

  private static ClaimId claimed(OrderStore from, OrderSnapshot snapshot, Duration lease) {
    ClaimResult result = from.claim(snapshot, lease);
    if (!(result instanceof ClaimResult.Claimed)) {
      fail(
          says(
                  "claim must answer Claimed but answered " + result.getClass().getSimpleName(),
                  snapshot.sessionId(),
                  null,
                  result.record())
              .get());
    }
    ClaimId claimId = ((ClaimResult.Claimed) result).claimId();
    assertEquals(
        claimId,
        result.record().claimId(),
        says(
            "the record a Claimed carries must hold the granted token",
            snapshot.sessionId(),
            claimId,
            result.record()));
    return claimId;
  }

  private static ClaimId claimed(OrderStore from, String sessionId) {
    return claimed(from, snapshot(sessionId), LEASE);
  }

  private ClaimId claimed(String sessionId) {
    return claimed(store(), sessionId);
  }

  private static <T extends ClaimResult> T claimAnswers(
      Class<T> expected, ClaimResult result, String sessionId, String why) {
    if (!expected.isInstance(result)) {
      fail(
          says(
                  "claim must answer "
                      + expected.getSimpleName()
                      + " ("
                      + why
                      + ") but answered "
                      + result.getClass().getSimpleName(),
                  sessionId,
                  null,
                  result.record())
              .get());
    }
    return expected.cast(result);
  }

  private static OrderRecord written(
      WriteResult result, String what, String sessionId, ClaimId presented) {
    if (!(result instanceof WriteResult.Written)) {
      fail(
          says(
                  what + " must answer Written but answered " + result.getClass().getSimpleName(),
                  sessionId,
                  presented,
                  result.record())
              .get());
    }
    return result.record();
  }

  private static OrderRecord superseded(
      WriteResult result, String what, String sessionId, ClaimId presented) {
    if (!(result instanceof WriteResult.Superseded)) {
      fail(
          says(
                  what
                      + " must answer Superseded but answered "
                      + result.getClass().getSimpleName(),
                  sessionId,
                  presented,
                  result.record())
              .get());
    }
    return result.record();
  }

  private static OrderRecord record(OrderStore from, String sessionId, ClaimId presented) {
    Optional<OrderRecord> found = from.get(sessionId);
    assertTrue(found.isPresent(), says("get must find the order", sessionId, presented, null));
    return found.get();
  }

  private OrderRecord record(String sessionId, ClaimId presented) {
    return record(store(), sessionId, presented);
  }

  /** Asserts the stored order is exactly {@code before}: nothing changed, not even updatedAt. */
  private void unchanged(OrderRecord before, String sessionId, ClaimId presented, String after) {
    OrderRecord now = record(sessionId, presented);
    assertEquals(
        before,
        now,
        says(
            "after "
                + after
                + " the order must be unchanged, not even"
                + " updatedAt; it was "
                + describe(sessionId, presented, before)
                + " and is now",
            sessionId,
            presented,
            now));
  }

  /**
   * Asserts {@code call} throws IllegalArgumentException or NullPointerException whose message
   * names {@code argument}.
   */
  private static void rejects(String argument, String sessionId, String what, Executable call) {
    Throwable thrown = null;
    try {
      call.execute();
    } catch (TestAbortedException skipped) {
      throw skipped; // the store could not be made (no server): skip, do not judge the store
    } catch (Throwable t) {
      thrown = t;
    }
    Throwable caught = thrown;
    assertNotNull(
        caught,
        () ->
            what
                + " must throw IllegalArgumentException or"
                + " NullPointerException naming '"
                + argument
                + "' but returned normally (order '"
                + sessionId
                + "')");
    assertTrue(
        caught instanceof IllegalArgumentException || caught instanceof NullPointerException,
        () ->
            what
                + " must throw IllegalArgumentException or NullPointerException naming '"
                + argument
                + "', before anything reaches the backend, but threw "
                + caught
                + " (order '"
                + sessionId
                + "')");
    String message = String.valueOf(caught.getMessage());
    assertTrue(
        message.contains(argument),
        () ->
            what
                + " threw "
                + caught.getClass().getSimpleName()
                + " whose message does not name the argument '"
                + argument
                + "': \""
                + message
                + "\" (order '"
                + sessionId
                + "')");
  }

  private void absent(String sessionId, String after) {
    Optional<OrderRecord> found = store().get(sessionId);
    assertTrue(
        found.isEmpty(),
        says(
            "after " + after + " nothing may have been written, but get" + " finds the order",
            sessionId,
            null,
            found.orElse(null)));
    assertEquals(
        List.of(),
        store().orphans(sessionId),
        says("after " + after + " no orphan may have been written", sessionId, null, null));
  }

  private static List<Orphan> orphans(OrderStore from, String sessionId) {
    List<Orphan> found = from.orphans(sessionId);
    assertNotNull(found, () -> "orphans must never return null (order '" + sessionId + "')");
    return found;
  }

  private Instant now() {
    return clock.instant();
  }

  // ================================================================ the incident (seed tests)

  /**
   * Attempt A claims and overruns its lease; attempt B re-claims and provisions; A's late fail must
   * be superseded, the order must stay provisioned with B's item, and it must not be claimable
   * again (a claimable order is a third charge waiting for the next retry).
   *
   * <p>If this fails, check that fail compares the token presented with the record's current claim
   * before writing, and that claim answers Provisioned for a PROVISIONED order.
   */
  @Test
  @DisplayName("a stale failure cannot undo a provisioned order")
  void staleFailureCannotUndoProvisioned() {
    String sid = sid("stale-fail");
    ClaimId slow = claimed(sid);
    clock.advance(LEASE);
    ClaimId fresh = claimed(sid);
    written(store().complete(sid, fresh, ESIM), "the fresh attempt's complete", sid, fresh);

    superseded(store().fail(sid, slow, "provider outage"), "the stale fail", sid, slow);

    OrderRecord record = record(sid, slow);
    assertEquals(
        OrderStatus.PROVISIONED,
        record.status(),
        says("the customer's eSIM must survive a stale fail", sid, slow, record));
    assertEquals(
        ESIM, record.item(), says("the item must be the fresh attempt's", sid, slow, record));
    claimAnswers(
        ClaimResult.Provisioned.class,
        store().claim(snapshot(sid), LEASE),
        sid,
        "the order must not be re-opened for a third purchase");
  }

  /**
   * A superseded attempt's complete must not replace the item the live attempt delivered and the
   * customer was shown; the superseded item is kept as an orphan instead.
   *
   * <p>If this fails, check that complete compares the token presented with the record's current
   * claim before writing the item.
   */
  @Test
  @DisplayName("a stale completion cannot overwrite the item the customer was shown")
  void staleCompletionCannotOverwriteItem() {
    String sid = sid("stale-complete");
    ClaimId slow = claimed(sid);
    clock.advance(LEASE);
    ClaimId fresh = claimed(sid);
    OrderRecord shown =
        written(store().complete(sid, fresh, ESIM), "the fresh complete", sid, fresh);

    superseded(store().complete(sid, slow, ESIM_2), "the stale complete", sid, slow);

    unchanged(shown, sid, slow, "a stale complete");
    assertEquals(
        List.of(new Orphan(sid, slow, ESIM_2, now())),
        orphans(store(), sid),
        says("the stale attempt's item must be recorded as an orphan", sid, slow));
  }

  /**
   * When the newer attempt failed, the order is FAILED and claimable, but a write from the older,
   * superseded attempt must still be rejected: the fence is the token, not the status.
   *
   * <p>If this fails, check that complete and fail reject a token other than the current claim
   * whatever the status, and that a fail clears the claim.
   */
  @Test
  @DisplayName("a stale write is rejected even when the newer attempt failed")
  void staleWriteRejectedWhenNewerFailed() {
    String sid = sid("newer-failed");
    ClaimId slow = claimed(sid);
    clock.advance(LEASE);
    ClaimId fresh = claimed(sid);
    OrderRecord failed =
        written(store().fail(sid, fresh, "card declined"), "the fresh fail", sid, fresh);

    superseded(store().fail(sid, slow, "timeout"), "the stale fail", sid, slow);
    superseded(store().complete(sid, slow, ESIM), "the stale complete", sid, slow);

    unchanged(failed, sid, slow, "stale writes on a failed order");
    assertEquals(
        "card declined",
        failed.lastError(),
        says("the newer attempt's error must be" + " kept", sid, slow, failed));
    assertEquals(
        fresh, failed.settledBy(), says("settledBy must be the newer attempt", sid, slow, failed));
    ClaimId next = claimed(sid);
    assertEquals(
        3, next.fence(), says("the failed order must be claimable, with fence 3", sid, next));
  }

  /**
   * Once an attempt settled the order, another write from the same token (a different item, a fail
   * after a complete, a complete after a fail, an extend) is superseded and changes nothing:
   * settling ends the claim.
   *
   * <p>If this fails, check that complete and fail clear the claim (claimId, claimedAt,
   * leaseExpiresAt) and that only an exact replay of the settle answers Written.
   */
  @Test
  @DisplayName("a settled order rejects a second write from the same token")
  void settledOrderRejectsSecondWrite() {
    String sid = sid("settled-twice");
    ClaimId token = claimed(sid);
    OrderRecord done = written(store().complete(sid, token, ESIM), "the complete", sid, token);
    clock.advance(Duration.ofSeconds(1));
    superseded(
        store().complete(sid, token, ESIM_2), "a second complete with another item", sid, token);
    superseded(store().fail(sid, token, "late failure"), "a fail after the complete", sid, token);
    superseded(store().extend(sid, token, LEASE), "an extend after the complete", sid, token);
    unchanged(done, sid, token, "second writes from the settling token");

    String other = sid("failed-twice");
    ClaimId loser = claimed(other);
    OrderRecord failed = written(store().fail(other, loser, "declined"), "the fail", other, loser);
    clock.advance(Duration.ofSeconds(1));
    superseded(
        store().fail(other, loser, "another error"),
        "a second fail with another error",
        other,
        loser);
    superseded(store().extend(other, loser, LEASE), "an extend after the fail", other, loser);
    unchanged(failed, other, loser, "second writes from the failing token");
  }

  /**
   * A token the store never granted is superseded for complete, fail and extend, and the order
   * stays as its real claim left it; the real token still settles it.
   *
   * <p>If this fails, check that writes compare the whole token (fence and nonce) with the record's
   * current claim, and never accept a token because the order is PENDING.
   */
  @Test
  @DisplayName("an unknown token is rejected outright")
  void unknownTokenRejected() {
    String sid = sid("unknown-token");
    ClaimId real = claimed(sid);
    OrderRecord before = record(sid, real);
    ClaimId madeUp = new ClaimId(7, ClaimId.newNonce());
    superseded(store().fail(sid, madeUp, "forged"), "a fail with a made-up token", sid, madeUp);
    superseded(store().extend(sid, madeUp, LEASE), "an extend with a made-up token", sid, madeUp);
    unchanged(before, sid, madeUp, "writes with a made-up token");
    written(store().complete(sid, real, ESIM), "the real token's complete", sid, real);
  }

  /**
   * A slow attempt heartbeats, then its provider call hangs past the extended lease; another
   * attempt claims and provisions. The slow attempt's late extend and fail are superseded and the
   * order stays provisioned and unclaimable.
   *
   * <p>If this fails, check that extend and fail compare the token with the current claim, and that
   * an extend does not revive a claim another attempt took over.
   */
  @Test
  @DisplayName(
      "a provisioning call that outlives its lease cannot fail the order another attempt provisioned")
  void outlivedLeaseCannotFailProvisioned() {
    String sid = sid("outlived");
    ClaimId slow = claimed(sid);
    clock.advance(LEASE.dividedBy(2));
    written(store().extend(sid, slow, LEASE), "the slow attempt's heartbeat", sid, slow);
    clock.advance(LEASE);
    ClaimId fresh = claimed(sid);
    OrderRecord done =
        written(store().complete(sid, fresh, ESIM), "the fresh complete", sid, fresh);
    clock.advance(LEASE.dividedBy(3));

    superseded(store().extend(sid, slow, LEASE), "the slow attempt's late heartbeat", sid, slow);
    superseded(
        store().fail(sid, slow, "provider timeout after 160 s"),
        "the slow attempt's fail",
        sid,
        slow);

    unchanged(done, sid, slow, "the outlived attempt's writes");
    claimAnswers(
        ClaimResult.Provisioned.class,
        store().claim(snapshot(sid), LEASE),
        sid,
        "a provisioned order is never claimable again");
  }

  /**
   * A superseded attempt completes while the live attempt is still working: the item is recorded as
   * an orphan (real money to reconcile), the live claim is untouched, and the live attempt still
   * completes with its own item.
   *
   * <p>If this fails, check that a superseded complete appends {@code Orphan(sessionId, claimId,
   * item, now)} in the same atomic step as the rejection and writes nothing else.
   */
  @Test
  @DisplayName(
      "an item bought by a superseded attempt is reported as orphaned, not written over the live one")
  void supersededPurchaseIsOrphaned() {
    String sid = sid("orphaned");
    ClaimId slow = claimed(sid);
    clock.advance(LEASE);
    ClaimId fresh = claimed(sid);
    OrderRecord live = record(sid, fresh);
    clock.advance(Duration.ofSeconds(3));
    Instant rejectedAt = now();

    superseded(store().complete(sid, slow, ESIM_2), "the superseded attempt's complete", sid, slow);

    unchanged(live, sid, slow, "the superseded complete");
    assertEquals(
        List.of(new Orphan(sid, slow, ESIM_2, rejectedAt)),
        orphans(store(), sid),
        says(
            "the superseded purchase must be listed as an orphan, with its token, item and the"
                + " time it was rejected",
            sid,
            slow));
    OrderRecord done = written(store().complete(sid, fresh, ESIM), "the live complete", sid, fresh);
    assertEquals(
        ESIM, done.item(), says("the live attempt's item must be the order's", sid, fresh, done));
    assertEquals(
        1, orphans(store(), sid).size(), says("the live complete adds no orphan", sid, fresh));
  }

  /**
   * Two deliveries of one event claim at the same moment (repeated on several orders): exactly one
   * is Claimed, the other is InFlight (the handler's 409, so Stripe retries later) and sees the
   * winner's token; after the winner completes, a third delivery is Provisioned.
   *
   * <p>If this fails, check that the claim reads and writes the order in one atomic step (a
   * transaction holding the row lock, a Lua script), so two claims cannot both see it free.
   */
  @Test
  @DisplayName("two concurrent deliveries claim exactly once; the loser is told to retry later")
  void twoConcurrentDeliveriesClaimOnce() {
    for (int round = 0; round < 10; round++) {
      String sid = sid("two-deliveries-" + round);
      OrderStore store = store();
      List<ClaimResult> results = Race.run(2, i -> store.claim(snapshot(sid), LEASE));
      exactlyOneOwner(sid, results);
      ClaimId winner =
          results.stream()
              .filter(r -> r instanceof ClaimResult.Claimed)
              .map(r -> ((ClaimResult.Claimed) r).claimId())
              .findFirst()
              .orElseThrow();
      written(store().complete(sid, winner, ESIM), "the winner's complete", sid, winner);
      claimAnswers(
          ClaimResult.Provisioned.class,
          store().claim(snapshot(sid), LEASE),
          sid,
          "a third delivery after the winner completed is a duplicate");
    }
  }

  private void exactlyOneOwner(String sid, List<ClaimResult> results) {
    List<ClaimId> owners = new ArrayList<>();
    for (ClaimResult result : results) {
      if (result instanceof ClaimResult.Claimed) {
        owners.add(((ClaimResult.Claimed) result).claimId());
      }
    }
    assertEquals(
        1,
        owners.size(),
        says(
            results.size()
                + " concurrent claims must yield exactly one"
                + " Claimed, the rest InFlight; got owners "
                + owners
                + " from "
                + results,
            sid,
            null));
    ClaimId owner = owners.get(0);
    assertEquals(1, owner.fence(), says("the first claim of an order has fence 1", sid, owner));
    for (ClaimResult result : results) {
      if (!(result instanceof ClaimResult.Claimed)) {
        claimAnswers(ClaimResult.InFlight.class, result, sid, "the owner holds a live lease");
        assertEquals(
            owner,
            result.record().claimId(),
            says(
                "an InFlight answer must show the" + " owner's claim",
                sid,
                owner,
                result.record()));
      }
    }
    OrderRecord stored = record(sid, owner);
    assertEquals(
        owner, stored.claimId(), says("the stored claim must be the owner's", sid, owner, stored));
    assertEquals(
        1, stored.fence(), says("one claim was granted, so the fence is 1", sid, owner, stored));
  }

  /**
   * A stale write through one instance is fenced off by the claim another instance granted over the
   * same data: the fence holds across processes, not only across threads.
   *
   * <p>If this fails, check that the fence is decided by the database (a row lock, a script), not
   * by state cached in the store instance.
   */
  @Test
  @DisplayName("a stale write from another instance is fenced off")
  void staleWriteFromAnotherInstance() throws Exception {
    OrderStore other = peer();
    String sid = sid("peer-stale");
    ClaimId slow = claimed(store(), sid);
    clock.advance(LEASE);
    ClaimId fresh = claimed(other, sid);
    assertEquals(
        2, fresh.fence(), says("the peer's re-claim must see the first claim", sid, fresh));
    OrderRecord done = written(other.complete(sid, fresh, ESIM), "the peer's complete", sid, fresh);

    superseded(
        store().fail(sid, slow, "provider outage"),
        "the stale fail through the first instance",
        sid,
        slow);
    superseded(
        store().complete(sid, slow, ESIM_2),
        "the stale complete through the first instance",
        sid,
        slow);

    assertEquals(
        done,
        record(store(), sid, slow),
        says("the first instance must read the peer's" + " write, unchanged", sid, slow));
    assertEquals(
        done,
        record(other, sid, slow),
        says("the peer must read its own write," + " unchanged", sid, slow));
    assertEquals(
        List.of(new Orphan(sid, slow, ESIM_2, now())),
        orphans(other, sid),
        says("the peer must list the orphan recorded through the first instance", sid, slow));
    claimAnswers(
        ClaimResult.Provisioned.class,
        store().claim(snapshot(sid), LEASE),
        sid,
        "provisioned through the peer");
  }

  /**
   * {@link #raceThreads()} threads claim one new order at the same moment, several times: one
   * Claimed with fence 1, all others InFlight showing the owner's token.
   *
   * <p>If this fails, check that the first claim's insert cannot succeed twice (a primary key and
   * ON CONFLICT, HSETNX, a lock taken before the read), and that the loser of the insert decides
   * again against the winner's row.
   */
  @Test
  @DisplayName("concurrent claims for one session yield exactly one owner")
  void concurrentClaimsOneOwner() {
    for (int round = 0; round < 4; round++) {
      String sid = sid("claim-race-" + round);
      OrderStore store = store();
      exactlyOneOwner(sid, Race.run(raceThreads(), i -> store.claim(snapshot(sid), LEASE)));
    }
  }

  // ================================================================ claim: one test per row

  /**
   * The first claim creates a PENDING order with fence 1, the snapshot, and a claim from now to now
   * + lease; no item, no error, not settled; get returns exactly the record the claim answered.
   *
   * <p>If this fails, check the insert of a new order: every field and the lease arithmetic.
   */
  @Test
  @DisplayName("the first claim creates a pending order with fence 1 and a lease from now")
  void firstClaimCreates() {
    String sid = sid("first-claim");
    clock.advance(Duration.ofMillis(1234));
    Instant at = now();
    ClaimResult.Claimed claimed =
        claimAnswers(
            ClaimResult.Claimed.class,
            store().claim(snapshot(sid), Duration.ofSeconds(90)),
            sid,
            "the order is new");
    ClaimId token = claimed.claimId();
    OrderRecord expected =
        new OrderRecord(
            snapshot(sid),
            OrderStatus.PENDING,
            null,
            null,
            token,
            at,
            at.plusSeconds(90),
            1,
            null,
            at);
    assertEquals(
        1, token.fence(), says("the first claim has fence 1", sid, token, claimed.record()));
    assertEquals(
        expected, claimed.record(), says("the created order", sid, token, claimed.record()));
    assertEquals(
        expected,
        record(sid, token),
        says("get must return the record claim answered", sid, token));
    assertEquals(List.of(), orphans(store(), sid), says("a new order has no orphans", sid, token));
  }

  /**
   * A PROVISIONED order answers Provisioned to every later claim, whenever it comes, and the claim
   * changes nothing.
   *
   * <p>If this fails, check that claim tests for PROVISIONED before looking at the lease.
   */
  @Test
  @DisplayName("a provisioned order is never claimed again, and the claim changes nothing")
  void provisionedNeverClaimedAgain() {
    String sid = sid("provisioned");
    ClaimId token = claimed(sid);
    OrderRecord done = written(store().complete(sid, token, ESIM), "the complete", sid, token);
    for (Duration later : List.of(Duration.ZERO, LEASE, Duration.ofHours(25))) {
      clock.advance(later);
      ClaimResult.Provisioned answer =
          claimAnswers(
              ClaimResult.Provisioned.class,
              store().claim(snapshot(sid), LEASE),
              sid,
              "PROVISIONED is terminal");
      assertEquals(
          done,
          answer.record(),
          says("Provisioned must carry the order as it is", sid, token, answer.record()));
    }
    unchanged(done, sid, token, "claims of a provisioned order");
  }

  /**
   * While the current claim's lease is live ({@code now < leaseExpiresAt}), another claim answers
   * InFlight with the holder's record, and changes nothing.
   *
   * <p>If this fails, check the lease comparison ({@code now < leaseExpiresAt} means live) and that
   * an InFlight claim writes nothing.
   */
  @Test
  @DisplayName("a live lease turns another claim away as in flight, changing nothing")
  void liveLeaseInFlight() {
    String sid = sid("in-flight");
    ClaimId holder = claimed(sid);
    OrderRecord held = record(sid, holder);
    for (Duration step :
        List.of(Duration.ZERO, Duration.ofSeconds(1), LEASE.minusSeconds(1).minusMillis(1))) {
      clock.advance(step);
      ClaimResult.InFlight answer =
          claimAnswers(
              ClaimResult.InFlight.class,
              store().claim(snapshot(sid), LEASE),
              sid,
              "the holder's lease is live at " + now());
      assertEquals(
          held,
          answer.record(),
          says("InFlight must carry the holder's record", sid, holder, answer.record()));
    }
    unchanged(held, sid, holder, "claims turned away as in flight");
  }

  /**
   * A PENDING order whose lease ran out is claimed again: fence + 1, a new nonce, a claim from now,
   * status PENDING, updatedAt now.
   *
   * <p>If this fails, check the re-claim update: the fence must be incremented and the nonce drawn
   * anew, in the same atomic step that read the expired lease.
   */
  @Test
  @DisplayName("an expired lease can be claimed again: fence + 1, a new nonce, status pending")
  void expiredLeaseReclaimed() {
    String sid = sid("expired");
    ClaimId first = claimed(sid);
    clock.advance(LEASE.plusSeconds(30));
    Instant at = now();
    ClaimResult.Claimed again =
        claimAnswers(
            ClaimResult.Claimed.class,
            store().claim(snapshot(sid), Duration.ofSeconds(45)),
            sid,
            "the lease expired");
    ClaimId second = again.claimId();
    assertEquals(
        first.fence() + 1,
        second.fence(),
        says("the re-claim's fence", sid, second, again.record()));
    assertNotEquals(
        first.nonce(),
        second.nonce(),
        says("the re-claim's nonce must be new", sid, second, again.record()));
    OrderRecord expected =
        new OrderRecord(
            snapshot(sid),
            OrderStatus.PENDING,
            null,
            null,
            second,
            at,
            at.plusSeconds(45),
            2,
            null,
            at);
    assertEquals(
        expected, again.record(), says("the re-claimed order", sid, second, again.record()));
    assertEquals(expected, record(sid, second), says("get after the re-claim", sid, second));
  }

  /**
   * A FAILED order has no claim, so the next claim is granted at once: fence + 1, status PENDING,
   * and lastError and settledBy kept.
   *
   * <p>If this fails, check that fail clears the claim and that claim treats "no claim" as free.
   */
  @Test
  @DisplayName("a failed order can be claimed again at once, keeping its last error")
  void failedOrderClaimedAgain() {
    String sid = sid("failed-reclaim");
    ClaimId first = claimed(sid);
    written(store().fail(sid, first, "provider said 503"), "the fail", sid, first);
    clock.advance(Duration.ofMillis(5));
    Instant at = now();
    ClaimResult.Claimed again =
        claimAnswers(
            ClaimResult.Claimed.class,
            store().claim(snapshot(sid), LEASE),
            sid,
            "a FAILED order is claimable");
    OrderRecord expected =
        new OrderRecord(
            snapshot(sid),
            OrderStatus.PENDING,
            null,
            "provider said 503",
            again.claimId(),
            at,
            at.plus(LEASE),
            2,
            first,
            at);
    assertEquals(
        expected,
        again.record(),
        says(
            "the re-claimed order keeps lastError and settledBy",
            sid,
            again.claimId(),
            again.record()));
    assertEquals(
        expected,
        record(sid, again.claimId()),
        says("get after the re-claim", sid, again.claimId()));
  }

  /**
   * The lease is over at exactly {@code leaseExpiresAt}: a claim 1 ms before is InFlight, a claim
   * at that instant is Claimed ({@code now >= leaseExpiresAt}).
   *
   * <p>If this fails, check the comparison: live means {@code now < leaseExpiresAt}, strictly.
   */
  @Test
  @DisplayName("a lease is over at exactly leaseExpiresAt: a claim at that instant succeeds")
  void leaseBoundary() {
    String sid = sid("boundary");
    ClaimId first = claimed(store(), snapshot(sid), Duration.ofMillis(1500));
    Instant expires = record(sid, first).leaseExpiresAt();
    clock.set(expires.minusMillis(1));
    claimAnswers(
        ClaimResult.InFlight.class,
        store().claim(snapshot(sid), LEASE),
        sid,
        "1 ms before leaseExpiresAt the lease is live");
    clock.set(expires);
    ClaimId second = claimed(sid);
    assertEquals(2, second.fence(), says("the claim at leaseExpiresAt", sid, second));
  }

  /**
   * The snapshot stored is the first claim's; later claims (granted, in flight, or on a provisioned
   * order) carrying another snapshot for the same session do not overwrite it.
   *
   * <p>If this fails, check that the re-claim update writes the claim columns only, not the
   * snapshot.
   */
  @Test
  @DisplayName("the first snapshot is kept; a later claim's snapshot does not overwrite it")
  void firstSnapshotKept() {
    String sid = sid("snapshot");
    OrderSnapshot first = snapshot(sid);
    OrderSnapshot later = new OrderSnapshot(sid, "esim-us-10gb", 3, null, 4500, "eur");
    ClaimId token = claimed(store(), first, LEASE);
    ClaimResult inFlight = store().claim(later, LEASE);
    assertEquals(
        first,
        inFlight.record().snapshot(),
        says("an in-flight claim keeps the first" + " snapshot", sid, token, inFlight.record()));
    written(store().fail(sid, token, "declined"), "the fail", sid, token);
    ClaimId second = claimed(store(), later, LEASE);
    assertEquals(
        first,
        record(sid, second).snapshot(),
        says("a granted re-claim keeps the first" + " snapshot", sid, second));
    written(store().complete(sid, second, ESIM), "the complete", sid, second);
    ClaimResult done = store().claim(later, LEASE);
    assertEquals(
        first,
        done.record().snapshot(),
        says(
            "a claim of a provisioned order keeps the" + " first snapshot",
            sid,
            second,
            done.record()));
    assertEquals(first, record(sid, second).snapshot(), says("the stored snapshot", sid, second));
  }

  /**
   * Over five claims (re-claimed after fails and after expired leases) the fences are 1, 2, 3, 4, 5
   * and the record's fence follows.
   *
   * <p>If this fails, check that every granted claim sets fence = previous fence + 1, read in the
   * same atomic step.
   */
  @Test
  @DisplayName("the fence strictly increases with every claim: 1, 2, 3, ...")
  void fenceIncreases() {
    String sid = sid("fence");
    for (long expected = 1; expected <= 5; expected++) {
      ClaimId token = claimed(sid);
      assertEquals(
          expected,
          token.fence(),
          says("claim number " + expected + " must have fence " + expected, sid, token));
      assertEquals(
          expected,
          record(sid, token).fence(),
          says("the record's fence after claim " + expected, sid, token));
      if (expected % 2 == 1) {
        written(
            store().fail(sid, token, "attempt " + expected + " failed"), "the fail", sid, token);
      } else {
        clock.advance(LEASE);
      }
    }
  }

  /**
   * Every granted claim carries a nonce never seen before, on the same order and across orders.
   *
   * <p>If this fails, check that the nonce is drawn from a secure random source for every claim
   * (never derived from the session id, the fence or the time).
   */
  @Test
  @DisplayName("every claim gets a new nonce")
  void newNonceEachClaim() {
    Set<String> nonces = new HashSet<>();
    String sid = sid("nonce");
    for (int i = 0; i < 4; i++) {
      ClaimId token = claimed(sid);
      assertTrue(
          nonces.add(token.nonce()), says("claim " + (i + 1) + " reused a nonce", sid, token));
      clock.advance(LEASE);
    }
    for (int i = 0; i < 3; i++) {
      String other = sid("nonce-" + i);
      ClaimId token = claimed(other);
      assertTrue(nonces.add(token.nonce()), says("a first claim reused a nonce", other, token));
    }
  }

  /**
   * A failed order's lastError stays when it is claimed again (after the fail, and after that
   * claim's lease expires), until a newer fail replaces it.
   *
   * <p>If this fails, check that the re-claim update leaves lastError alone.
   */
  @Test
  @DisplayName("the last error is kept when the order is claimed again")
  void lastErrorKeptAcrossReclaim() {
    String sid = sid("last-error");
    ClaimId first = claimed(sid);
    written(store().fail(sid, first, "provider said 503"), "the first fail", sid, first);
    ClaimId second = claimed(sid);
    assertEquals(
        "provider said 503",
        record(sid, second).lastError(),
        says("lastError after the" + " re-claim", sid, second));
    clock.advance(LEASE);
    ClaimId third = claimed(sid);
    assertEquals(
        "provider said 503",
        record(sid, third).lastError(),
        says("lastError after a" + " re-claim of an expired lease", sid, third));
    OrderRecord failed =
        written(store().fail(sid, third, "card declined"), "the second fail", sid, third);
    assertEquals(
        "card declined",
        failed.lastError(),
        says("a newer fail replaces lastError", sid, third, failed));
  }

  // ================================================================ settle

  /**
   * complete by the current claim: PROVISIONED, the item, the claim cleared, settledBy the token,
   * updatedAt now; everything else as it was.
   *
   * <p>If this fails, check the fields the complete writes.
   */
  @Test
  @DisplayName(
      "complete by the current claim provisions the order, clears the claim and records who settled it")
  void completeByCurrentClaim() {
    String sid = sid("complete");
    ClaimId token = claimed(sid);
    clock.advance(Duration.ofSeconds(10));
    OrderRecord done = written(store().complete(sid, token, ESIM), "the complete", sid, token);
    OrderRecord expected =
        new OrderRecord(
            snapshot(sid), OrderStatus.PROVISIONED, ESIM, null, null, null, null, 1, token, now());
    assertEquals(expected, done, says("the record complete answered", sid, token, done));
    assertEquals(expected, record(sid, token), says("get after the complete", sid, token));
    assertEquals(
        List.of(), orphans(store(), sid), says("a current complete records no orphan", sid, token));
  }

  /**
   * fail by the current claim: FAILED, lastError the error, the claim cleared, settledBy the token,
   * updatedAt now.
   *
   * <p>If this fails, check the fields the fail writes.
   */
  @Test
  @DisplayName(
      "fail by the current claim marks the order failed, clears the claim and records the error")
  void failByCurrentClaim() {
    String sid = sid("fail");
    ClaimId token = claimed(sid);
    clock.advance(Duration.ofSeconds(10));
    OrderRecord failed =
        written(store().fail(sid, token, "provider said 503"), "the fail", sid, token);
    OrderRecord expected =
        new OrderRecord(
            snapshot(sid),
            OrderStatus.FAILED,
            null,
            "provider said 503",
            null,
            null,
            null,
            1,
            token,
            now());
    assertEquals(expected, failed, says("the record fail answered", sid, token, failed));
    assertEquals(expected, record(sid, token), says("get after the fail", sid, token));
  }

  /**
   * extend by the current claim sets leaseExpiresAt to now + lease and updatedAt to now; the claim,
   * claimedAt and status stay. Other claims are InFlight until the new expiry.
   *
   * <p>If this fails, check that extend computes the lease from the clock's now, not from the old
   * expiry or claimedAt.
   */
  @Test
  @DisplayName(
      "extend by the current claim moves the lease to now + lease and changes nothing else")
  void extendByCurrentClaim() {
    String sid = sid("extend");
    ClaimId token = claimed(sid);
    OrderRecord before = record(sid, token);
    clock.advance(Duration.ofSeconds(30));
    OrderRecord extended =
        written(store().extend(sid, token, Duration.ofMinutes(5)), "the extend", sid, token);
    OrderRecord expected =
        new OrderRecord(
            before.snapshot(),
            OrderStatus.PENDING,
            null,
            null,
            token,
            before.claimedAt(),
            now().plus(Duration.ofMinutes(5)),
            1,
            null,
            now());
    assertEquals(expected, extended, says("the record extend answered", sid, token, extended));
    assertEquals(expected, record(sid, token), says("get after the extend", sid, token));
    clock.set(before.leaseExpiresAt().plusMillis(1));
    claimAnswers(
        ClaimResult.InFlight.class,
        store().claim(snapshot(sid), LEASE),
        sid,
        "the extended lease is live after the original expiry");
    clock.set(expected.leaseExpiresAt());
    assertEquals(2, claimed(sid).fence(), says("a claim at the extended expiry", sid, token));
  }

  /**
   * The holder of an expired lease that nobody took over still completes: the fence is ownership,
   * not time.
   *
   * <p>If this fails, check that complete compares tokens only and never rejects a write because
   * {@code leaseExpiresAt} has passed.
   */
  @Test
  @DisplayName(
      "the fence is ownership, not time: the holder of an expired lease that nobody took over still completes")
  void expiredHolderStillCompletes() {
    String sid = sid("late-complete");
    ClaimId token = claimed(sid);
    clock.advance(LEASE.multipliedBy(3));
    OrderRecord done = written(store().complete(sid, token, ESIM), "the late complete", sid, token);
    assertEquals(
        OrderStatus.PROVISIONED, done.status(), says("the late complete", sid, token, done));
    assertEquals(done, record(sid, token), says("get after the late complete", sid, token));
  }

  /**
   * The holder of an expired lease that nobody took over still fails the order.
   *
   * <p>If this fails, check that fail compares tokens only, not the lease's expiry.
   */
  @Test
  @DisplayName("the holder of an expired lease that nobody took over still fails")
  void expiredHolderStillFails() {
    String sid = sid("late-fail");
    ClaimId token = claimed(sid);
    clock.advance(LEASE.multipliedBy(3));
    OrderRecord failed = written(store().fail(sid, token, "timeout"), "the late fail", sid, token);
    assertEquals(OrderStatus.FAILED, failed.status(), says("the late fail", sid, token, failed));
    assertEquals(failed, record(sid, token), says("get after the late fail", sid, token));
  }

  /**
   * The holder of an expired lease that nobody took over can still extend it, which makes the lease
   * live again.
   *
   * <p>If this fails, check that extend compares tokens only, not the lease's expiry.
   */
  @Test
  @DisplayName("the holder of an expired lease that nobody took over can still extend it")
  void expiredHolderStillExtends() {
    String sid = sid("late-extend");
    ClaimId token = claimed(sid);
    clock.advance(LEASE.multipliedBy(3));
    OrderRecord extended =
        written(store().extend(sid, token, LEASE), "the late extend", sid, token);
    assertEquals(
        now().plus(LEASE),
        extended.leaseExpiresAt(),
        says("the late extend's expiry", sid, token, extended));
    claimAnswers(
        ClaimResult.InFlight.class,
        store().claim(snapshot(sid), LEASE),
        sid,
        "the extended lease is live again");
  }

  /**
   * An extend from a claim that another attempt took over is superseded and changes nothing: it
   * cannot take the order back.
   *
   * <p>If this fails, check that extend compares the token with the current claim.
   */
  @Test
  @DisplayName("an extend from a superseded claim is rejected and changes nothing")
  void supersededExtendRejected() {
    String sid = sid("stale-extend");
    ClaimId slow = claimed(sid);
    clock.advance(LEASE);
    ClaimId fresh = claimed(sid);
    OrderRecord live = record(sid, fresh);
    clock.advance(Duration.ofSeconds(1));
    superseded(store().extend(sid, slow, LEASE), "the superseded extend", sid, slow);
    unchanged(live, sid, slow, "a superseded extend");
  }

  /**
   * An extend after the order was settled (completed, or failed) is superseded: a settled order has
   * no claim to extend.
   *
   * <p>If this fails, check that settling clears the claim and that extend is never treated as a
   * replay.
   */
  @Test
  @DisplayName("an extend after the order was settled is rejected")
  void extendAfterSettleRejected() {
    String sid = sid("extend-settled");
    ClaimId token = claimed(sid);
    OrderRecord done = written(store().complete(sid, token, ESIM), "the complete", sid, token);
    superseded(store().extend(sid, token, LEASE), "an extend after complete", sid, token);
    unchanged(done, sid, token, "an extend after complete");

    String other = sid("extend-failed");
    ClaimId loser = claimed(other);
    OrderRecord failed = written(store().fail(other, loser, "declined"), "the fail", other, loser);
    superseded(store().extend(other, loser, LEASE), "an extend after fail", other, loser);
    unchanged(failed, other, loser, "an extend after fail");
  }

  /**
   * A token with the current fence but another nonce (what a superseded attempt holds after the
   * record was lost and created again, e.g. a Redis restart) is superseded for every write; its
   * complete is orphaned.
   *
   * <p>If this fails, check that writes compare the nonce as well as the fence.
   */
  @Test
  @DisplayName("a made-up token with the current fence but another nonce is superseded")
  void sameFenceOtherNonceSuperseded() {
    String sid = sid("resurrected");
    ClaimId real = claimed(sid);
    OrderRecord before = record(sid, real);
    ClaimId ghost = new ClaimId(real.fence(), ClaimId.newNonce());
    superseded(store().extend(sid, ghost, LEASE), "an extend with the ghost token", sid, ghost);
    superseded(
        store().fail(sid, ghost, "ghost failure"), "a fail with the ghost token", sid, ghost);
    superseded(store().complete(sid, ghost, ESIM_2), "a complete with the ghost token", sid, ghost);
    unchanged(before, sid, ghost, "writes with a token of the right fence and a wrong nonce");
    assertEquals(
        List.of(new Orphan(sid, ghost, ESIM_2, now())),
        orphans(store(), sid),
        says("the ghost's purchase must be orphaned", sid, ghost));
    written(store().complete(sid, real, ESIM), "the real token's complete", sid, real);
  }

  /**
   * Superseded complete, fail and extend leave the order exactly as it was, updatedAt included, and
   * answer the order as it is.
   *
   * <p>If this fails, check that a rejected write issues no UPDATE at all (not even of updatedAt)
   * and answers the record it read.
   */
  @Test
  @DisplayName("a superseded write changes nothing, not even updatedAt")
  void supersededChangesNothing() {
    String sid = sid("untouched");
    ClaimId slow = claimed(sid);
    clock.advance(LEASE);
    ClaimId fresh = claimed(sid);
    OrderRecord live = record(sid, fresh);
    clock.advance(Duration.ofSeconds(7));
    assertEquals(
        live,
        superseded(store().complete(sid, slow, ESIM_2), "the stale complete", sid, slow),
        says("Superseded must carry the order as it is", sid, slow));
    clock.advance(Duration.ofSeconds(7));
    assertEquals(
        live,
        superseded(store().fail(sid, slow, "late"), "the stale fail", sid, slow),
        says("Superseded must carry the order as it is", sid, slow));
    clock.advance(Duration.ofSeconds(7));
    assertEquals(
        live,
        superseded(store().extend(sid, slow, LEASE), "the stale extend", sid, slow),
        says("Superseded must carry the order as it is", sid, slow));
    unchanged(live, sid, slow, "superseded complete, fail and extend");
  }

  /**
   * The attempt that failed the order later reports a successful purchase (its provider call
   * succeeded after all): the complete is superseded and its item orphaned, since it is not a
   * replay of the fail.
   *
   * <p>If this fails, check that only the same operation with an equal item or error is a replay,
   * and that every superseded complete is orphaned.
   */
  @Test
  @DisplayName(
      "a complete from the token that failed the order is superseded and its item orphaned")
  void completeAfterOwnFailOrphaned() {
    String sid = sid("fail-then-complete");
    ClaimId token = claimed(sid);
    OrderRecord failed = written(store().fail(sid, token, "timeout"), "the fail", sid, token);
    clock.advance(Duration.ofSeconds(2));
    superseded(store().complete(sid, token, ESIM), "the complete after the fail", sid, token);
    unchanged(failed, sid, token, "a complete after the same token's fail");
    assertEquals(
        List.of(new Orphan(sid, token, ESIM, now())),
        orphans(store(), sid),
        says("the late purchase must be orphaned", sid, token));
  }

  /**
   * Writes to one order leave another order, and its orphans, untouched.
   *
   * <p>If this fails, check that every statement and script is keyed by the session id.
   */
  @Test
  @DisplayName("orders are independent: settling one does not touch another")
  void ordersIndependent() {
    String a = sid("independent-a");
    String b = sid("independent-b");
    ClaimId tokenA = claimed(a);
    ClaimId tokenB = claimed(b);
    assertEquals(1, tokenB.fence(), says("another order's first claim has fence 1", b, tokenB));
    OrderRecord recordB = record(b, tokenB);
    written(store().complete(a, tokenA, ESIM), "the complete of A", a, tokenA);
    superseded(store().complete(a, tokenB, ESIM_2), "B's token on A", a, tokenB);
    superseded(store().complete(b, tokenA, ESIM_3), "A's token on B", b, tokenA);
    unchanged(recordB, b, tokenB, "writes on order A");
    assertEquals(
        List.of(new Orphan(b, tokenA, ESIM_3, now())),
        orphans(store(), b),
        says("B's orphans", b, tokenA));
    assertEquals(
        List.of(new Orphan(a, tokenB, ESIM_2, now())),
        orphans(store(), a),
        says("A's orphans", a, tokenB));
  }

  // ================================================================ replays

  /**
   * The attempt that completed the order retries the same complete (its first try timed out after
   * landing): Written, with the record unchanged, not even updatedAt, and no orphan.
   *
   * <p>If this fails, check the replay rule: claimId equals settledBy, same operation, equal item,
   * answered Written without writing.
   */
  @Test
  @DisplayName(
      "a retried complete with the same token and item answers Written and changes nothing, not even updatedAt")
  void completeReplay() {
    String sid = sid("complete-replay");
    ClaimId token = claimed(sid);
    OrderRecord done = written(store().complete(sid, token, ESIM), "the complete", sid, token);
    clock.advance(Duration.ofSeconds(5));
    OrderRecord again =
        written(store().complete(sid, token, ESIM), "the retried complete", sid, token);
    assertEquals(
        done,
        again,
        says("the retry must answer the record as the first try left it", sid, token, again));
    unchanged(done, sid, token, "a retried complete");
    assertEquals(List.of(), orphans(store(), sid), says("a replay is not an orphan", sid, token));
  }

  /**
   * The attempt that failed the order retries the same fail: Written, nothing changes.
   *
   * <p>If this fails, check the replay rule for fail: claimId equals settledBy, the order is still
   * FAILED, equal error.
   */
  @Test
  @DisplayName("a retried fail with the same token and error answers Written and changes nothing")
  void failReplay() {
    String sid = sid("fail-replay");
    ClaimId token = claimed(sid);
    OrderRecord failed = written(store().fail(sid, token, "declined"), "the fail", sid, token);
    clock.advance(Duration.ofSeconds(5));
    OrderRecord again =
        written(store().fail(sid, token, "declined"), "the retried fail", sid, token);
    assertEquals(
        failed,
        again,
        says("the retry must answer the record as the first try left it", sid, token, again));
    unchanged(failed, sid, token, "a retried fail");
  }

  /**
   * The settling token completes again with another item: not a replay, so Superseded, the order
   * keeps its item, and the other item is orphaned (a second purchase was made).
   *
   * <p>If this fails, check that a replay requires an equal item (providerOrderId and payload).
   */
  @Test
  @DisplayName(
      "a retried complete with the same token but another item is superseded, and that item orphaned")
  void completeReplayOtherItem() {
    String sid = sid("replay-other-item");
    ClaimId token = claimed(sid);
    OrderRecord done = written(store().complete(sid, token, ESIM), "the complete", sid, token);
    clock.advance(Duration.ofSeconds(5));
    Item samePurchaseOtherPayload = new Item(ESIM.providerOrderId(), "LPA:1$other");
    superseded(store().complete(sid, token, ESIM_2), "a complete with another item", sid, token);
    superseded(
        store().complete(sid, token, samePurchaseOtherPayload),
        "a complete with another payload",
        sid,
        token);
    unchanged(done, sid, token, "completes with other items");
    assertEquals(
        List.of(
            new Orphan(sid, token, ESIM_2, now()),
            new Orphan(sid, token, samePurchaseOtherPayload, now())),
        orphans(store(), sid),
        says("both other items must be orphaned", sid, token));
  }

  /**
   * The failing token fails again with another error: not a replay, so Superseded and nothing
   * changes.
   *
   * <p>If this fails, check that a fail replay requires an equal error.
   */
  @Test
  @DisplayName("a retried fail with another error is superseded and changes nothing")
  void failReplayOtherError() {
    String sid = sid("replay-other-error");
    ClaimId token = claimed(sid);
    OrderRecord failed = written(store().fail(sid, token, "declined"), "the fail", sid, token);
    superseded(store().fail(sid, token, "timeout"), "a fail with another error", sid, token);
    unchanged(failed, sid, token, "a fail with another error");
  }

  /**
   * A fail retried after another attempt re-claimed the order is no longer a replay: the order is
   * PENDING under a newer claim, so the retry is Superseded and changes nothing.
   *
   * <p>If this fails, check that a fail replay requires the order to still be FAILED as that fail
   * left it.
   */
  @Test
  @DisplayName("a fail retried after the order was claimed again is superseded")
  void failReplayAfterReclaim() {
    String sid = sid("replay-after-claim");
    ClaimId first = claimed(sid);
    written(store().fail(sid, first, "declined"), "the fail", sid, first);
    ClaimId second = claimed(sid);
    OrderRecord live = record(sid, second);
    superseded(
        store().fail(sid, first, "declined"), "the retried fail after a re-claim", sid, first);
    unchanged(live, sid, first, "a fail retried after a re-claim");
  }

  // ================================================================ orphans

  /**
   * A superseded complete retried three times (and again after the order was provisioned) is one
   * orphan, with the time of the first rejection; another providerOrderId from the same token is a
   * second orphan.
   *
   * <p>If this fails, check that orphans are unique per (sessionId, claimId, providerOrderId) and
   * that the first one is kept (INSERT ... ON CONFLICT DO NOTHING, HSETNX).
   */
  @Test
  @DisplayName(
      "a superseded complete is orphaned once per token and provider order id, however often it is retried")
  void orphanOncePerPurchase() {
    String sid = sid("orphan-once");
    ClaimId slow = claimed(sid);
    clock.advance(LEASE);
    ClaimId fresh = claimed(sid);
    Instant first = now();
    for (int i = 0; i < 3; i++) {
      superseded(
          store().complete(sid, slow, ESIM_2), "retry " + i + " of the stale complete", sid, slow);
      clock.advance(Duration.ofSeconds(1));
    }
    Instant second = now();
    superseded(
        store().complete(sid, slow, ESIM_3), "the stale complete of another purchase", sid, slow);
    written(store().complete(sid, fresh, ESIM), "the live complete", sid, fresh);
    clock.advance(Duration.ofSeconds(1));
    superseded(
        store().complete(sid, slow, ESIM_2), "a retry after the order was provisioned", sid, slow);
    assertEquals(
        List.of(new Orphan(sid, slow, ESIM_2, first), new Orphan(sid, slow, ESIM_3, second)),
        orphans(store(), sid),
        says("one orphan per (claimId, providerOrderId), the first kept", sid, slow));
  }

  /**
   * Orphans from several superseded tokens are listed in the order they were recorded, oldest
   * first, and a later orphan never replaces an earlier one.
   *
   * <p>If this fails, check that orphans are appended (a sequence or list, not a map keyed by
   * order) and read back in insertion order.
   */
  @Test
  @DisplayName("orphans are kept in the order they were recorded, and never overwritten")
  void orphansInOrder() {
    String sid = sid("orphan-order");
    List<ClaimId> tokens = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      tokens.add(claimed(sid));
      clock.advance(LEASE);
    }
    List<Orphan> expected = new ArrayList<>();
    int[] order = {1, 0, 2};
    for (int i : order) {
      ClaimId stale = tokens.get(i);
      Item item = new Item("prov-stale-" + i, "payload " + i);
      superseded(store().complete(sid, stale, item), "stale complete " + i, sid, stale);
      expected.add(new Orphan(sid, stale, item, now()));
      clock.advance(Duration.ofMillis(10));
    }
    written(
        store().complete(sid, tokens.get(3), ESIM),
        "the current token's complete",
        sid,
        tokens.get(3));
    superseded(
        store().complete(sid, tokens.get(0), ESIM_3), "another stale purchase", sid, tokens.get(0));
    expected.add(new Orphan(sid, tokens.get(0), ESIM_3, now()));
    assertEquals(
        expected, orphans(store(), sid), says("orphans oldest first, none replaced", sid, null));
  }

  // ================================================================ unknown orders and reads

  /**
   * complete on an order that was never claimed throws UnknownOrderException naming the order, and
   * creates nothing.
   *
   * <p>If this fails, check that complete never inserts (an UPDATE or a script that finds no record
   * must throw, not upsert).
   */
  @Test
  @DisplayName("complete on an unknown order throws UnknownOrderException and creates nothing")
  void completeUnknown() {
    unknown("complete", (sid, token) -> store().complete(sid, token, ESIM));
  }

  /**
   * fail on an order that was never claimed throws UnknownOrderException and creates nothing.
   *
   * <p>If this fails, check that fail never inserts.
   */
  @Test
  @DisplayName("fail on an unknown order throws UnknownOrderException and creates nothing")
  void failUnknown() {
    unknown("fail", (sid, token) -> store().fail(sid, token, "declined"));
  }

  /**
   * extend on an order that was never claimed throws UnknownOrderException and creates nothing.
   *
   * <p>If this fails, check that extend never inserts.
   */
  @Test
  @DisplayName("extend on an unknown order throws UnknownOrderException and creates nothing")
  void extendUnknown() {
    unknown("extend", (sid, token) -> store().extend(sid, token, LEASE));
  }

  /** A write on an unknown order. */
  @FunctionalInterface
  private interface UnknownWrite {
    WriteResult run(String sessionId, ClaimId token);
  }

  private void unknown(String operation, UnknownWrite write) {
    String sid = sid("unknown-" + operation);
    ClaimId token = new ClaimId(1, ClaimId.newNonce());
    UnknownOrderException thrown = null;
    WriteResult returned = null;
    try {
      returned = write.run(sid, token);
    } catch (UnknownOrderException e) {
      thrown = e;
    }
    WriteResult answered = returned;
    assertNotNull(
        thrown,
        says(
            operation
                + " of an order never claimed must throw"
                + " UnknownOrderException but answered "
                + answered,
            sid,
            token,
            answered == null ? null : answered.record()));
    assertEquals(
        sid, thrown.sessionId(), says("UnknownOrderException must name the order", sid, token));
    absent(sid, operation + " of an unknown order");
  }

  /**
   * get of an order that was never claimed is empty.
   *
   * <p>If this fails, check that get returns Optional.empty() for a missing row or key.
   */
  @Test
  @DisplayName("get of an unknown order is empty")
  void getUnknown() {
    String sid = sid("get-unknown");
    Optional<OrderRecord> found = store().get(sid);
    assertNotNull(found, () -> "get must never return null (order '" + sid + "')");
    assertTrue(found.isEmpty(), says("get of an unknown order", sid, null, found.orElse(null)));
  }

  /**
   * orphans of an order that was never claimed is an empty list, not null and not an error.
   *
   * <p>If this fails, check that orphans returns List.of() for a missing order.
   */
  @Test
  @DisplayName("orphans of an unknown order is an empty list")
  void orphansUnknown() {
    String sid = sid("orphans-unknown");
    assertEquals(List.of(), orphans(store(), sid), says("orphans of an unknown order", sid, null));
  }

  // ================================================================ time

  /**
   * All lease arithmetic is in whole milliseconds of the clock: a claim at a sub-millisecond
   * instant records the instant truncated to the millisecond, the lease ends lease later, and the
   * boundary is judged on truncated readings too.
   *
   * <p>If this fails, check that the store truncates the clock's reading to milliseconds
   * (OrderStateMachine.now) before storing or comparing it, and that the backend keeps at least
   * millisecond precision.
   */
  @Test
  @DisplayName("lease arithmetic is in whole milliseconds, whatever the clock's precision")
  void millisecondPrecision() {
    String sid = sid("millis");
    Instant start = TestClock.START.plusNanos(123_456_789);
    Instant ms = TestClock.START.plusMillis(123);
    clock.set(start);
    ClaimId token = claimed(store(), snapshot(sid), Duration.ofMillis(1500));
    OrderRecord claimed = record(sid, token);
    assertEquals(
        ms, claimed.claimedAt(), says("claimedAt at a clock of " + start, sid, token, claimed));
    assertEquals(
        ms.plusMillis(1500), claimed.leaseExpiresAt(), says("leaseExpiresAt", sid, token, claimed));
    assertEquals(ms, claimed.updatedAt(), says("updatedAt", sid, token, claimed));
    Instant expires = claimed.leaseExpiresAt();
    clock.set(expires.minusNanos(1));
    claimAnswers(
        ClaimResult.InFlight.class,
        store().claim(snapshot(sid), LEASE),
        sid,
        "1 ns before expiry reads as 1 ms before");
    clock.set(expires.plusNanos(999_999));
    written(
        store().extend(sid, token, Duration.ofMillis(250)),
        "an extend at a sub-millisecond instant",
        sid,
        token);
    OrderRecord extended = record(sid, token);
    assertEquals(
        expires.plusMillis(250),
        extended.leaseExpiresAt(),
        says("the extended lease", sid, token, extended));
    clock.set(expires.plusMillis(250).plusNanos(500_000));
    ClaimId second = claimed(sid);
    assertEquals(
        expires.plusMillis(250),
        record(sid, second).claimedAt(),
        says("claimedAt of the" + " re-claim", sid, second));
  }

  // ================================================================ bad input

  /**
   * claim(null, lease) throws NullPointerException naming the snapshot.
   *
   * <p>If this fails, check that claim validates with ClaimRequest before touching the backend.
   */
  @Test
  @DisplayName("claim rejects a null snapshot, naming it")
  void claimNullSnapshot() {
    rejects("snapshot", "-", "claim(null, lease)", () -> store().claim(null, LEASE));
  }

  /**
   * A claim with a null, zero, negative, sub-millisecond or over-24-hour lease throws, naming the
   * lease, and creates nothing; 1 ms and exactly 24 h are accepted.
   *
   * <p>If this fails, check that claim validates with ClaimRequest (Validate.lease) first.
   */
  @Test
  @DisplayName(
      "claim rejects a lease that is null, not positive, under 1 ms or over 24 h, naming the lease, and writes nothing")
  void claimBadLease() {
    String sid = sid("bad-lease");
    for (Duration bad : badLeases()) {
      rejects("lease", sid, "claim with lease " + bad, () -> store().claim(snapshot(sid), bad));
      absent(sid, "a claim with lease " + bad);
    }
    claimed(store(), snapshot(sid), Duration.ofMillis(1));
    claimed(store(), snapshot(sid("max-lease")), OrderStore.MAX_LEASE);
  }

  private static List<Duration> badLeases() {
    List<Duration> bad = new ArrayList<>();
    bad.add(null);
    bad.add(Duration.ZERO);
    bad.add(Duration.ofSeconds(-5));
    bad.add(Duration.ofNanos(999_999));
    bad.add(OrderStore.MAX_LEASE.plusMillis(1));
    bad.add(Duration.ofDays(365));
    return bad;
  }

  /**
   * An extend with a null, zero, negative, sub-millisecond or over-24-hour lease throws, naming the
   * lease, and changes nothing.
   *
   * <p>If this fails, check that extend validates with WriteRequest.Extend first.
   */
  @Test
  @DisplayName(
      "extend rejects a lease that is null, not positive, under 1 ms or over 24 h, naming the lease, and changes nothing")
  void extendBadLease() {
    String sid = sid("extend-bad-lease");
    ClaimId token = claimed(sid);
    OrderRecord before = record(sid, token);
    clock.advance(Duration.ofSeconds(1));
    for (Duration bad : badLeases()) {
      rejects("lease", sid, "extend with lease " + bad, () -> store().extend(sid, token, bad));
    }
    unchanged(before, sid, token, "extends with bad leases");
  }

  /**
   * complete with a null item throws NullPointerException naming the item and changes nothing.
   *
   * <p>If this fails, check that complete validates with WriteRequest.Complete first.
   */
  @Test
  @DisplayName("complete rejects a null item, naming it, and changes nothing")
  void completeNullItem() {
    String sid = sid("null-item");
    ClaimId token = claimed(sid);
    OrderRecord before = record(sid, token);
    rejects("item", sid, "complete with a null item", () -> store().complete(sid, token, null));
    unchanged(before, sid, token, "a complete with a null item");
    assertEquals(
        List.of(), orphans(store(), sid), says("no orphan from a rejected input", sid, token));
  }

  /**
   * fail with a null, empty, blank, over-long or NUL-carrying error throws naming the error and
   * changes nothing.
   *
   * <p>If this fails, check that fail validates with WriteRequest.Fail first.
   */
  @Test
  @DisplayName("fail rejects a null, blank or over-long error, naming it, and changes nothing")
  void failBadError() {
    String sid = sid("bad-error");
    ClaimId token = claimed(sid);
    OrderRecord before = record(sid, token);
    List<String> bad = new ArrayList<>();
    bad.add(null);
    bad.add("");
    bad.add(" \n\t ");
    bad.add("x".repeat(Validate.MAX_ERROR_LENGTH + 1));
    bad.add("nul\0inside");
    for (String error : bad) {
      rejects(
          "error", sid, "fail with error " + quote(error), () -> store().fail(sid, token, error));
    }
    unchanged(before, sid, token, "fails with bad errors");
  }

  /**
   * complete, fail and extend with a null token throw NullPointerException naming claimId and
   * change nothing.
   *
   * <p>If this fails, check that every write validates with WriteRequest first.
   */
  @Test
  @DisplayName("complete, fail and extend reject a null token, naming claimId, and change nothing")
  void nullToken() {
    String sid = sid("null-token");
    ClaimId token = claimed(sid);
    OrderRecord before = record(sid, token);
    rejects("claimId", sid, "complete with a null token", () -> store().complete(sid, null, ESIM));
    rejects("claimId", sid, "fail with a null token", () -> store().fail(sid, null, "declined"));
    rejects("claimId", sid, "extend with a null token", () -> store().extend(sid, null, LEASE));
    unchanged(before, sid, token, "writes with a null token");
    assertEquals(
        List.of(), orphans(store(), sid), says("no orphan from a rejected input", sid, token));
  }

  /**
   * Every method given a bad session id throws naming sessionId: complete, fail, extend, get and
   * orphans directly, claim through its snapshot.
   */
  private void badSessionId(String bad, String why) {
    ClaimId token = new ClaimId(1, ClaimId.newNonce());
    rejects("sessionId", bad, "a snapshot with " + why, () -> snapshot(bad));
    rejects("sessionId", bad, "complete with " + why, () -> store().complete(bad, token, ESIM));
    rejects("sessionId", bad, "fail with " + why, () -> store().fail(bad, token, "declined"));
    rejects("sessionId", bad, "extend with " + why, () -> store().extend(bad, token, LEASE));
    rejects("sessionId", bad, "get with " + why, () -> store().get(bad));
    rejects("sessionId", bad, "orphans with " + why, () -> store().orphans(bad));
  }

  /**
   * A null session id is rejected by every method, naming sessionId.
   *
   * <p>If this fails, check that every method validates the session id (Validate.sessionId or a
   * WriteRequest) before touching the backend.
   */
  @Test
  @DisplayName("every method rejects a null session id, naming sessionId")
  void nullSessionId() {
    badSessionId(null, "a null session id");
  }

  /**
   * An empty or blank session id is rejected by every method, naming sessionId.
   *
   * <p>If this fails, check that every method validates the session id first.
   */
  @Test
  @DisplayName("every method rejects a blank session id, naming sessionId")
  void blankSessionId() {
    badSessionId("", "an empty session id");
    badSessionId("   ", "a blank session id");
  }

  /**
   * A session id of 256 characters is rejected by every method, and nothing is stored under its
   * first 255 characters (a backend that truncates would merge two orders).
   *
   * <p>If this fails, check that every method validates the session id first.
   */
  @Test
  @DisplayName(
      "every method rejects a session id over 255 characters, naming sessionId, and stores nothing")
  void longSessionId() {
    String prefix = sid("long-");
    String bad = prefix + "x".repeat(256 - prefix.length());
    badSessionId(bad, "a session id of 256 characters");
    absent(bad.substring(0, 255), "calls with a 256-character session id");
  }

  /**
   * A session id with a control character (newline, tab, DEL, U+0085) is rejected by every method,
   * and nothing is stored under the id without it.
   *
   * <p>If this fails, check that every method validates the session id first.
   */
  @Test
  @DisplayName("every method rejects a session id with control characters, naming sessionId")
  void controlCharSessionId() {
    String base = sid("ctl");
    for (String control : List.of("\n", "\t", "\u007f", "\u0085", "\r")) {
      badSessionId(
          base + control + "x",
          "a session id containing U+" + String.format("%04X", (int) control.charAt(0)));
    }
    absent(base + "x", "calls with control characters in the session id");
  }

  /**
   * A snapshot with quantity below 1 cannot be built; the message names quantity; nothing is
   * written.
   *
   * <p>If this fails, check OrderSnapshot's validation (store-api).
   */
  @Test
  @DisplayName("a snapshot with quantity below 1 is rejected, naming quantity")
  void badQuantity() {
    String sid = sid("quantity");
    rejects(
        "quantity", sid, "quantity 0", () -> new OrderSnapshot(sid, "esim", 0, null, 100, "usd"));
    rejects(
        "quantity", sid, "quantity -1", () -> new OrderSnapshot(sid, "esim", -1, null, 100, "usd"));
    absent(sid, "rejected snapshots");
  }

  /**
   * A snapshot with a negative amountTotal cannot be built; zero (a free order) is accepted.
   *
   * <p>If this fails, check OrderSnapshot's validation and that the backend stores 0.
   */
  @Test
  @DisplayName(
      "a snapshot with a negative amountTotal is rejected, naming amountTotal; zero is accepted")
  void badAmount() {
    String sid = sid("amount");
    rejects(
        "amountTotal",
        sid,
        "amountTotal -1",
        () -> new OrderSnapshot(sid, "esim", 1, null, -1, "usd"));
    absent(sid, "a rejected snapshot");
    OrderSnapshot free = new OrderSnapshot(sid, "esim", 1, null, 0, "usd");
    ClaimId token = claimed(store(), free, LEASE);
    assertEquals(free, record(sid, token).snapshot(), says("a free order's snapshot", sid, token));
  }

  /**
   * A snapshot whose currency is null, not three characters, or not letters cannot be built.
   *
   * <p>If this fails, check OrderSnapshot's validation (Validate.currency).
   */
  @Test
  @DisplayName("a snapshot whose currency is not three letters is rejected, naming currency")
  void badCurrency() {
    String sid = sid("currency");
    List<String> bad = new ArrayList<>();
    bad.add(null);
    bad.add("");
    bad.add("us");
    bad.add("usdt");
    bad.add("u5d");
    bad.add("us ");
    for (String currency : bad) {
      rejects(
          "currency",
          sid,
          "currency " + quote(currency),
          () -> new OrderSnapshot(sid, "esim", 1, null, 100, currency));
    }
    absent(sid, "rejected snapshots");
  }

  /**
   * A snapshot without productId (null or blank) cannot be built.
   *
   * <p>If this fails, check OrderSnapshot's validation.
   */
  @Test
  @DisplayName("a snapshot without a product id is rejected, naming productId")
  void badProductId() {
    String sid = sid("product");
    rejects(
        "productId",
        sid,
        "a null productId",
        () -> new OrderSnapshot(sid, null, 1, null, 100, "usd"));
    rejects(
        "productId",
        sid,
        "a blank productId",
        () -> new OrderSnapshot(sid, " ", 1, null, 100, "usd"));
    absent(sid, "rejected snapshots");
  }

  /**
   * A snapshot without a customer email is valid; the store keeps the null (not "" or "null").
   *
   * <p>If this fails, check that the backend stores a missing email as SQL NULL or an absent field
   * and reads it back as null.
   */
  @Test
  @DisplayName("a snapshot without a customer email is accepted, and the null kept")
  void nullEmail() {
    String sid = sid("no-email");
    OrderSnapshot anonymous = new OrderSnapshot(sid, "esim", 2, null, 100, "EUR");
    ClaimId token = claimed(store(), anonymous, LEASE);
    OrderRecord stored = record(sid, token);
    assertNull(
        stored.snapshot().customerEmail(),
        says("the customer email must read back as null", sid, token, stored));
    assertEquals(anonymous, stored.snapshot(), says("the snapshot", sid, token, stored));
  }

  // ================================================================ values round-trip

  /**
   * A session id of exactly 255 characters with non-ASCII letters is accepted, stored under its
   * full value, and distinct from one that differs in the last character.
   *
   * <p>If this fails, check the key column's size is in characters (not bytes) and holds 255.
   */
  @Test
  @DisplayName(
      "a session id of exactly 255 characters, non-ASCII included, is accepted and round-trips")
  void longestSessionId() {
    String prefix = sid("longest-") + "-é-ü-";
    String sid = prefix + "ß".repeat(255 - prefix.length() - 1) + "a";
    String sibling = sid.substring(0, 254) + "b";
    assertEquals(255, sid.length());
    ClaimId token = claimed(sid);
    assertEquals(
        snapshot(sid), record(sid, token).snapshot(), says("the 255-character order", sid, token));
    assertTrue(
        store().get(sibling).isEmpty(),
        says(
            "an id differing in its last character is" + " another order",
            sibling,
            token,
            store().get(sibling).orElse(null)));
    assertEquals(1, claimed(sibling).fence(), says("the sibling's first claim", sibling, null));
  }

  /**
   * Ids and texts with quotes, braces, semicolons, backslashes, newlines, SQL and Lua syntax, and
   * characters outside the BMP round-trip unchanged through claim, complete, fail, orphans and get:
   * values travel as bound parameters and script arguments, never spliced.
   *
   * <p>If this fails, check that no value is concatenated into SQL, Lua or a key pattern, and that
   * text columns are UTF-8 and unlimited (or large enough).
   */
  @Test
  @DisplayName(
      "texts with quotes, braces, newlines and non-ASCII round-trip unchanged (values are bound, never spliced)")
  void hostileTextsRoundTrip() {
    String sid = sid("o'r\"d;e%r_{x}]]\\--🙂");
    OrderSnapshot hostile =
        new OrderSnapshot(
            sid,
            "prod'uct\"); DROP TABLE orders; --",
            7,
            "o'brien+{tag}@example.com",
            123_456_789_012L,
            "Eur");
    ClaimId first = claimed(store(), hostile, LEASE);
    String error = "line 1: 'quoted' \"double\"\nline 2: ]] .. redis.call('FLUSHALL') --[[ 🙂\t\\";
    OrderRecord failed =
        written(store().fail(sid, first, error), "a fail with a hostile error", sid, first);
    assertEquals(error, failed.lastError(), says("the error as fail answered", sid, first, failed));
    assertEquals(error, record(sid, first).lastError(), says("the error as stored", sid, first));
    ClaimId second = claimed(store(), hostile, LEASE);
    Item orphaned = new Item("prov'}{\"1", "%s %d ' \" \\n\n\u2028 🙂 ]]");
    Item item = new Item("prov-ok-{" + sid + "}", "{\"json\": \"yes\", \"quote\": \"'\"}\r\n");
    superseded(
        store().complete(sid, first, orphaned), "a stale complete with a hostile item", sid, first);
    OrderRecord done =
        written(store().complete(sid, second, item), "a complete with a hostile item", sid, second);
    assertEquals(item, done.item(), says("the item as complete answered", sid, second, done));
    OrderRecord stored = record(sid, second);
    assertEquals(hostile, stored.snapshot(), says("the snapshot as stored", sid, second, stored));
    assertEquals(item, stored.item(), says("the item as stored", sid, second, stored));
    assertEquals(error, stored.lastError(), says("the error as stored", sid, second, stored));
    assertEquals(
        List.of(new Orphan(sid, first, orphaned, now())),
        orphans(store(), sid),
        says("the orphan as stored", sid, first));
  }

  /**
   * The largest payload (64 Ki chars) and error (8 Ki chars) are accepted and round-trip; a null
   * payload reads back as null, not as an empty string.
   *
   * <p>If this fails, check the payload and error columns hold the documented maximum and that a
   * null payload is stored as null.
   */
  @Test
  @DisplayName("the largest payload and error round-trip, and a null payload stays null")
  void largestValuesRoundTrip() {
    String sid = sid("largest");
    ClaimId first = claimed(sid);
    String error = "e".repeat(Validate.MAX_ERROR_LENGTH - 1) + "é";
    written(store().fail(sid, first, error), "a fail with the longest error", sid, first);
    assertEquals(error, record(sid, first).lastError(), says("the longest error", sid, first));
    ClaimId second = claimed(sid);
    Item big =
        new Item("p".repeat(Validate.MAX_ID_LENGTH), "ü".repeat(Validate.MAX_PAYLOAD_LENGTH));
    superseded(
        store().complete(sid, first, big), "a stale complete with the largest item", sid, first);
    written(store().complete(sid, second, ESIM_3), "a complete with a null payload", sid, second);
    OrderRecord stored = record(sid, second);
    assertEquals(
        ESIM_3, stored.item(), says("a null payload must read back as null", sid, second, stored));
    assertEquals(
        List.of(new Orphan(sid, first, big, now())),
        orphans(store(), sid),
        says("the largest orphan", sid, first));
  }

  /**
   * close may be called more than once (the suite closes the store again after this test).
   *
   * <p>If this fails, check that close is idempotent (guard it with a flag).
   */
  @Test
  @DisplayName("closing a store twice is harmless")
  void closeTwice() throws Exception {
    OrderStore extra = track(newStore(clock), "newStore");
    extra.close();
    extra.close();
  }

  private static String quote(String value) {
    if (value == null) {
      return "null";
    }
    String shown =
        value.length() > 40 ? value.substring(0, 40) + "... (" + value.length() + " chars)" : value;
    return "'" + shown.replace("\n", "\\n").replace("\t", "\\t").replace("\0", "\\0") + "'";
  }

  // ================================================================ concurrency

  /**
   * {@link #stressThreads()} threads retry one superseded complete at the same moment: all are
   * Superseded and exactly one orphan is recorded.
   *
   * <p>If this fails, check that orphans are unique per (claimId, providerOrderId) in the database
   * (a unique key, HSETNX), not by a read-then-insert outside the lock.
   */
  @Test
  @DisplayName("concurrent retries of one superseded complete record one orphan")
  void concurrentOrphanRetries() {
    String sid = sid("orphan-race");
    ClaimId slow = claimed(sid);
    clock.advance(LEASE);
    ClaimId fresh = claimed(sid);
    OrderRecord live = record(sid, fresh);
    OrderStore store = store();
    List<WriteResult> results = Race.run(stressThreads(), i -> store.complete(sid, slow, ESIM_2));
    for (WriteResult result : results) {
      superseded(result, "a concurrent retry of the stale complete", sid, slow);
    }
    unchanged(live, sid, slow, "concurrent stale completes");
    assertEquals(
        List.of(new Orphan(sid, slow, ESIM_2, now())),
        orphans(store(), sid),
        says("one orphan however many concurrent retries", sid, slow));
  }

  /**
   * {@link #stressThreads()} threads send the same complete at the same moment (a retry racing the
   * first try): all are Written with the same record, no orphan.
   *
   * <p>If this fails, check that the complete and the replay rule are decided under one lock: the
   * losers must see the winner's settle and answer it as a replay.
   */
  @Test
  @DisplayName("concurrent retries of one complete all answer Written with the same record")
  void concurrentCompleteRetries() {
    String sid = sid("complete-race");
    ClaimId token = claimed(sid);
    OrderStore store = store();
    List<WriteResult> results = Race.run(stressThreads(), i -> store.complete(sid, token, ESIM));
    OrderRecord stored = record(sid, token);
    for (WriteResult result : results) {
      OrderRecord answered = written(result, "a concurrent retry of the complete", sid, token);
      assertEquals(
          stored,
          answered,
          says("every retry answers the one settled record", sid, token, answered));
    }
    assertEquals(List.of(), orphans(store(), sid), says("replays are not orphans", sid, token));
  }

  /**
   * Two completes (with different items) and two fails (with different errors), all with the
   * current token, race on each of several orders: exactly one is Written; the others are
   * superseded, and every complete that did not land has its item orphaned.
   *
   * <p>If this fails, check that complete and fail read the claim and write under the same lock, in
   * one atomic step: a check and a write in two steps lets two settles both pass the check.
   */
  @Test
  @DisplayName("a complete and a fail racing with one token: exactly one lands")
  void completeFailRace() {
    OrderStore store = store();
    for (int round = 0; round < settleRaceRounds(); round++) {
      String sid = sid("settle-race-" + round);
      ClaimId token = claimed(sid);
      List<WriteResult> results = Race.run(4, i -> switchSettle(store, i, sid, token));
      long landed = results.stream().filter(r -> r instanceof WriteResult.Written).count();
      assertEquals(
          1,
          landed,
          says(
              "exactly one of two completes and two fails racing with one"
                  + " token must land; got "
                  + results,
              sid,
              token));
      int winner = 0;
      while (!(results.get(winner) instanceof WriteResult.Written)) {
        winner++;
      }
      OrderRecord stored = record(sid, token);
      assertEquals(
          winner < 2 ? OrderStatus.PROVISIONED : OrderStatus.FAILED,
          stored.status(),
          says("the status must be the winner's", sid, token, stored));
      Set<Item> orphaned = new HashSet<>();
      orphans(store, sid).forEach(orphan -> orphaned.add(orphan.item()));
      Set<Item> expected = new HashSet<>(List.of(ESIM, ESIM_2));
      if (winner < 2) {
        expected.remove(winner == 0 ? ESIM : ESIM_2);
      }
      assertEquals(
          expected,
          orphaned,
          says("every complete that did not land is an orphan", sid, token, stored));
    }
  }

  private static WriteResult switchSettle(OrderStore store, int i, String sid, ClaimId token) {
    if (i == 0) {
      return store.complete(sid, token, ESIM);
    }
    if (i == 1) {
      return store.complete(sid, token, ESIM_2);
    }
    return store.fail(sid, token, i == 2 ? "timeout" : "provider said no");
  }

  /** How many orders {@code completeFailRace} races settles on; fewer for a slow backend. */
  protected int settleRaceRounds() {
    return 48;
  }

  /**
   * {@link #stressThreads()} threads (half on the peer instance, if there is one) make about six
   * calls per order over {@link #stressOrders()} orders: claims with short leases, completes,
   * fails, extends, stale writes from superseded tokens and retried settles, while the clock moves
   * on. Then every invariant of the contract is checked against what each call was told and the
   * final state: fences 1..n with real-time order respected, at most one live claim at a time, no
   * Written for a superseded token, at most one completed purchase, PROVISIONED never changing, and
   * every superseded complete orphaned exactly once.
   *
   * <p>If this fails, check that every operation decides and writes in one atomic step under the
   * order's lock; the message names the order, the calls involved and the seed.
   */
  @Test
  @DisplayName(
      "many threads settling, re-claiming and writing stale on many orders keep every invariant")
  void stressKeepsInvariants() throws Exception {
    OrderStore store = store();
    OrderStore other = newPeerStore(clock);
    if (other != null) {
      track(other, "newPeerStore");
    }
    new StressRun(store(), other, clock, seed(), stressThreads(), stressOrders()).runAndCheck();
  }

  // ================================================================ across instances

  /**
   * An order claimed through one instance is InFlight through the other, which reads the same
   * record.
   *
   * <p>If this fails, check that the store keeps no per-instance cache of orders.
   */
  @Test
  @DisplayName("an order claimed through one instance is in flight through the other")
  void claimedOnOneInFlightOnOther() throws Exception {
    OrderStore other = peer();
    String sid = sid("peer-inflight");
    ClaimId token = claimed(store(), sid);
    OrderRecord held = record(store(), sid, token);
    ClaimResult.InFlight answer =
        claimAnswers(
            ClaimResult.InFlight.class,
            other.claim(snapshot(sid), LEASE),
            sid,
            "the first instance's claim is live");
    assertEquals(
        held,
        answer.record(),
        says("the peer must see the first instance's claim", sid, token, answer.record()));
    assertEquals(held, record(other, sid, token), says("the peer's get", sid, token));
  }

  /**
   * {@link #raceThreads()} threads, alternating between the two instances, claim one new order at
   * once: exactly one owner.
   *
   * <p>If this fails, check that the first claim's insert is decided by the database (a unique key,
   * a lock), not within one instance.
   */
  @Test
  @DisplayName("concurrent claims across two instances yield exactly one owner")
  void concurrentClaimsAcrossInstances() throws Exception {
    OrderStore other = peer();
    for (int round = 0; round < 4; round++) {
      String sid = sid("peer-race-" + round);
      OrderStore store = store();
      exactlyOneOwner(
          sid,
          Race.run(raceThreads(), i -> (i % 2 == 0 ? store : other).claim(snapshot(sid), LEASE)));
    }
  }

  /**
   * Concurrent retries of one stale complete through both instances record one orphan, listed by
   * both.
   *
   * <p>If this fails, check that orphan uniqueness is enforced by the database.
   */
  @Test
  @DisplayName("an orphan recorded through either instance is listed by both, once")
  void orphanAcrossInstances() throws Exception {
    OrderStore other = peer();
    String sid = sid("peer-orphan");
    ClaimId slow = claimed(store(), sid);
    clock.advance(LEASE);
    claimed(other, sid);
    OrderStore store = store();
    List<WriteResult> results =
        Race.run(stressThreads(), i -> (i % 2 == 0 ? store : other).complete(sid, slow, ESIM_2));
    for (WriteResult result : results) {
      superseded(result, "a stale complete through either instance", sid, slow);
    }
    List<Orphan> expected = List.of(new Orphan(sid, slow, ESIM_2, now()));
    assertEquals(
        expected, orphans(store(), sid), says("orphans through the first instance", sid, slow));
    assertEquals(expected, orphans(other, sid), says("orphans through the peer", sid, slow));
  }

  // ================================================================ linearizability

  /**
   * Randomized concurrent histories (threads run calls on a few orders in rounds, the clock
   * advancing between rounds) are each checked, per order, for a sequential order that respects
   * real time and whose replay through the reference state machine ({@link
   * org.fencekit.store.OrderStateMachine}) gives exactly the answers the store gave, ending in the
   * state get and orphans report.
   *
   * <p>If this fails, check that each operation reads, decides and writes in one atomic step, and
   * that answers report the state that step wrote. The message prints the seed and the history of
   * the order that has no valid sequential order.
   */
  @Test
  @DisplayName("concurrent histories are linearizable against the reference state machine")
  void linearizable() {
    new Linearizability(List.of(store()), clock, seed(), linearizabilityHistories()).runAndCheck();
  }

  /**
   * As the single-instance check, with half the threads calling through the peer instance.
   *
   * <p>If this fails, check that the atomic step is enforced by the database across connections and
   * instances.
   */
  @Test
  @DisplayName("concurrent histories across two instances are linearizable")
  void linearizableAcrossInstances() throws Exception {
    OrderStore other = peer();
    new Linearizability(List.of(store(), other), clock, seed(), linearizabilityHistories())
        .runAndCheck();
  }
}
