package org.fencekit.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.fencekit.history.LinearizabilityCheck;
import org.fencekit.store.ClaimId;
import org.fencekit.store.ClaimResult;
import org.fencekit.store.Item;
import org.fencekit.store.OrderRecord;
import org.fencekit.store.OrderSnapshot;
import org.fencekit.store.OrderStore;
import org.fencekit.store.OrderStoreAdmin;
import org.fencekit.store.Orphan;
import org.fencekit.store.WriteResult;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.function.Executable;
import org.opentest4j.TestAbortedException;

/**
 * The TCK's fixture, which every rule group extends: the test's clock and stores, made through the
 * {@link OrderStoreTck} being run (its {@code newStore}, {@code newPeerStore} and sizes), and the
 * helpers the rules use to make orders and to say what they found. The rule groups are siblings
 * over it; none extends another. Extend {@link OrderStoreTck}, not this class.
 */
@TestMethodOrder(RuleOrder.class)
@ExtendWith({RuleHints.class, TckFixture.EnclosingSuite.class})
public abstract class TckFixture {

  /**
   * The suite being run: the implementer's subclass of {@link OrderStoreTck}, whose {@code @Nested}
   * class runs this group; set by {@link EnclosingSuite} before each test.
   */
  OrderStoreTck suite;

  /** Only the rule groups extend the fixture. */
  TckFixture() {}

  /** Gives the rule group's instance the {@link OrderStoreTck} instance it is nested in. */
  static final class EnclosingSuite implements BeforeEachCallback {
    @Override
    public void beforeEach(ExtensionContext context) {
      ((TckFixture) context.getRequiredTestInstance()).suite =
          context.getRequiredTestInstances().findInstance(OrderStoreTck.class).orElseThrow();
    }
  }

  /** The lease of the seed tests: two minutes, as in the incident. */
  protected static final Duration LEASE = Duration.ofMinutes(2);

  /** Random per run, so session ids never collide across runs over one database. */
  static final String RUN = ClaimId.newNonce().substring(0, 10);

  static final AtomicLong SEQUENCE = new AtomicLong();

  /** The item the customer paid for in the seed tests. */
  static final Item ESIM = new Item("prov-esim-1", "LPA:1$smdp.example$ACTIVATION-1");

  /** An item a second, slower purchase bought. */
  static final Item ESIM_2 = new Item("prov-esim-2", "LPA:1$smdp.example$ACTIVATION-2");

  /** A third purchase. */
  static final Item ESIM_3 = new Item("prov-esim-3", null);

  final List<OrderStore> opened = new ArrayList<>();

  /** The clock of the current test; the store and its peer share it. */
  TestClock clock;

  /** The store of the current test, made on first use by {@link #store()}. */
  OrderStore store;

  /**
   * Gives each test a clock at {@link TestClock#START}. The store is made on first use, so the
   * suite's own {@code @BeforeEach} methods (which JUnit runs before this one) have run before
   * {@link OrderStoreTck#newStore} is called.
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

  /** The test's store, made by {@link OrderStoreTck#newStore} on first use. */
  OrderStore store() {
    if (store == null) {
      try {
        store = track(suite.newStore(clock), "newStore");
      } catch (RuntimeException | Error e) {
        throw e;
      } catch (Exception e) {
        throw new IllegalStateException(
            suite.getClass().getName() + ".newStore(clock) failed: " + e, e);
      }
    }
    return store;
  }

  OrderStore track(OrderStore created, String method) {
    assertNotNull(
        created, () -> suite.getClass().getName() + "." + method + "(clock) returned null");
    opened.add(created);
    return created;
  }

  /**
   * The peer store of this test; skips the test if {@link OrderStoreTck#newPeerStore} is not
   * overridden.
   */
  OrderStore peer() throws Exception {
    store(); // the peer shares the data of the last newStore
    OrderStore peer = suite.newPeerStore(clock);
    Assumptions.assumeTrue(
        peer != null,
        () ->
            "cross-instance test skipped: "
                + suite.getClass().getName()
                + " does not override newPeerStore(TestClock); override it to"
                + " return a second, independent instance over the same data (another pool, connection"
                + " or client) to run this test");
    return track(peer, "newPeerStore");
  }

  /** A session id unique to this test and this run; {@code label} helps read failures. */
  static String sid(String label) {
    return "tck-" + RUN + "-" + SEQUENCE.incrementAndGet() + "-" + label;
  }

  static OrderSnapshot snapshot(String sessionId) {
    return new OrderSnapshot(sessionId, "esim-eu-5gb", 1, "ada@example.com", 1999, "usd");
  }

  /**
   * What a failing implementer needs to see: the order, the token presented, the current token with
   * its lease and whether the lease is live at {@code clockReading}, then the rest of the record as
   * found ("no order found" without one).
   *
   * @param clockReading the test clock, or null if unknown
   */
  static String describe(
      String sessionId, ClaimId presented, OrderRecord found, Instant clockReading) {
    String out =
        "order '" + sessionId + "': token presented " + (presented == null ? "none" : presented);
    if (found == null || found.claimId() == null) {
      out += found == null ? "; no order found" : "; no current claim";
      out += clockReading == null ? "" : "; clock at " + clockReading;
    } else {
      out +=
          "; current token "
              + found.claimId()
              + ", its lease "
              + found.claimedAt()
              + " .. "
              + found.leaseExpiresAt();
      if (clockReading != null) {
        out +=
            (clockReading.isBefore(found.leaseExpiresAt()) ? " (live" : " (over")
                + " at the clock's "
                + clockReading
                + ")";
      }
    }
    if (found != null) {
      out +=
          String.format(
              "; status %s, fence %s, settledBy %s, item %s, lastError %s, updatedAt %s",
              found.status(),
              found.fence(),
              found.settledBy(),
              found.item(),
              quote(found.lastError()),
              found.updatedAt());
    }
    return out;
  }

  /** {@link #describe(String, ClaimId, OrderRecord, Instant)} without a clock reading. */
  static String describe(String sessionId, ClaimId presented, OrderRecord found) {
    return describe(sessionId, presented, found, null);
  }

  /** A text for a message: quoted, control characters shown, cut after 40 chars. */
  static String quote(String value) {
    if (value == null) {
      return "null";
    }
    String shown =
        value.length() > 40 ? value.substring(0, 40) + "... (" + value.length() + " chars)" : value;
    return "'" + shown.replace("\n", "\\n").replace("\t", "\\t").replace("\0", "\\0") + "'";
  }

  /**
   * The fields in which {@code found} differs from {@code expected}, each with both values, e.g.
   * {@code "updatedAt: expected 2026-09-14T12:00:00Z, found 2026-09-14T12:00:07Z"}.
   */
  static String differences(OrderRecord expected, OrderRecord found) {
    List<String> out = new ArrayList<>();
    differ(out, "snapshot", expected.snapshot(), found.snapshot());
    differ(out, "status", expected.status(), found.status());
    differ(out, "item", expected.item(), found.item());
    differ(out, "lastError", expected.lastError(), found.lastError());
    differ(out, "claimId", expected.claimId(), found.claimId());
    differ(out, "claimedAt", expected.claimedAt(), found.claimedAt());
    differ(out, "leaseExpiresAt", expected.leaseExpiresAt(), found.leaseExpiresAt());
    differ(out, "fence", expected.fence(), found.fence());
    differ(out, "settledBy", expected.settledBy(), found.settledBy());
    differ(out, "updatedAt", expected.updatedAt(), found.updatedAt());
    differ(out, "failures", expected.failures(), found.failures());
    differ(out, "failedSince", expected.failedSince(), found.failedSince());
    return String.join("; ", out);
  }

  private static void differ(List<String> out, String field, Object expected, Object found) {
    if (!Objects.equals(expected, found)) {
      out.add(field + ": expected " + expected + ", found " + found);
    }
  }

  /**
   * Asserts {@code found} equals {@code expected}, naming the fields that differ.
   *
   * @param what what {@code found} is, e.g. "the record complete answered"
   */
  void sameRecord(
      OrderRecord expected, OrderRecord found, String what, String sessionId, ClaimId presented) {
    if (found != null && !countsFailures(store())) {
      expected = LinearizabilityCheck.withoutFailures(expected);
      found = LinearizabilityCheck.withoutFailures(found);
    }
    if (found == null || !found.equals(expected)) {
      fail(
          what
              + (found == null
                  ? " is missing"
                  : ", but it differs in " + differences(expected, found))
              + "; "
              + describe(sessionId, presented, found, clock.instant()));
    }
  }

  /**
   * Whether {@code store} counts failures ({@link OrderRecord#failures}, {@link
   * OrderRecord#failedSince}): part of the {@link OrderStoreAdmin} role, so only a store that
   * implements it is held to them; the other rules compare every other field of every store.
   */
  static boolean countsFailures(OrderStore store) {
    return store instanceof OrderStoreAdmin;
  }

  /** {@link #describe} with the record read from {@code from} now, and the clock. */
  String describe(OrderStore from, String sessionId, ClaimId presented) {
    OrderRecord found;
    try {
      found = from.get(sessionId).orElse(null);
    } catch (RuntimeException e) {
      String order = "order '" + sessionId + "': token presented " + presented;
      return order + ", and reading the order failed: " + e;
    }
    return describe(sessionId, presented, found, clock.instant());
  }

  /** A lazy assertion message: {@code expectation}, then the order as the store holds it now. */
  Supplier<String> says(String expectation, String sessionId, ClaimId presented) {
    return () -> expectation + "; " + describe(store(), sessionId, presented);
  }

  /** A lazy assertion message from a record at hand, with the clock. */
  Supplier<String> says(
      String expectation, String sessionId, ClaimId presented, OrderRecord found) {
    TestClock at = clock;
    return () ->
        expectation
            + "; "
            + describe(sessionId, presented, found, at == null ? null : at.instant());
  }

  ClaimId claimed(OrderStore from, OrderSnapshot snapshot, Duration lease) {
    ClaimResult result = from.claim(snapshot, lease);
    String sid = snapshot.sessionId();
    if (!(result instanceof ClaimResult.Claimed)) {
      String answered = result.getClass().getSimpleName();
      fail(
          says("claim must answer Claimed but answered " + answered, sid, null, result.record())
              .get());
    }
    ClaimId claimId = ((ClaimResult.Claimed) result).claimId();
    String expectation = "the record a Claimed carries must hold the granted token";
    assertEquals(
        claimId, result.record().claimId(), says(expectation, sid, claimId, result.record()));
    return claimId;
  }

  ClaimId claimed(OrderStore from, String sessionId) {
    return claimed(from, snapshot(sessionId), LEASE);
  }

  ClaimId claimed(String sessionId) {
    return claimed(store(), sessionId);
  }

  <T extends ClaimResult> T claimAnswers(
      Class<T> expected, ClaimResult result, String sessionId, String why) {
    if (!expected.isInstance(result)) {
      String answered = result.getClass().getSimpleName();
      String expectation =
          "claim must answer "
              + expected.getSimpleName()
              + " ("
              + why
              + ") but answered "
              + answered;
      fail(says(expectation, sessionId, null, result.record()).get());
    }
    return expected.cast(result);
  }

  /**
   * A claim of {@code sessionId} with its snapshot and {@link #LEASE}, which must answer {@code
   * expected}.
   */
  <T extends ClaimResult> T claimAnswers(Class<T> expected, String sessionId, String why) {
    return claimAnswers(expected, store().claim(snapshot(sessionId), LEASE), sessionId, why);
  }

  /**
   * Asserts that of {@code results}, concurrent first claims of {@code sid}, exactly one is Claimed
   * with fence 1 and the rest InFlight showing its claim, which the store holds.
   */
  void exactlyOneOwner(String sid, List<ClaimResult> results) {
    List<ClaimId> owners = new ArrayList<>();
    for (ClaimResult result : results) {
      if (result instanceof ClaimResult.Claimed claimed) {
        owners.add(claimed.claimId());
      }
    }
    String expectation =
        " concurrent claims must yield exactly one Claimed, the rest InFlight; got owners ";
    assertEquals(
        1,
        owners.size(),
        says(results.size() + expectation + owners + " from " + results, sid, null));
    ClaimId owner = owners.get(0);
    assertEquals(1, owner.fence(), says("the first claim of an order has fence 1", sid, owner));
    for (ClaimResult result : results) {
      if (!(result instanceof ClaimResult.Claimed)) {
        claimAnswers(ClaimResult.InFlight.class, result, sid, "the owner holds a live lease");
        OrderRecord shown = result.record();
        assertEquals(
            owner,
            shown.claimId(),
            says("an InFlight answer must show the owner's claim", sid, owner, shown));
      }
    }
    OrderRecord stored = record(sid, owner);
    assertEquals(
        owner, stored.claimId(), says("the stored claim must be the owner's", sid, owner, stored));
    assertEquals(
        1, stored.fence(), says("one claim was granted, so the fence is 1", sid, owner, stored));
  }

  OrderRecord written(WriteResult result, String what, String sessionId, ClaimId presented) {
    return writeAnswers(WriteResult.Written.class, result, what, sessionId, presented);
  }

  OrderRecord superseded(WriteResult result, String what, String sessionId, ClaimId presented) {
    return writeAnswers(WriteResult.Superseded.class, result, what, sessionId, presented);
  }

  /** Asserts {@code what} answered {@code expected}; the record it answered. */
  private OrderRecord writeAnswers(
      Class<? extends WriteResult> expected,
      WriteResult result,
      String what,
      String sessionId,
      ClaimId presented) {
    if (!expected.isInstance(result)) {
      String expectation =
          what
              + " must answer "
              + expected.getSimpleName()
              + " but answered "
              + result.getClass().getSimpleName();
      fail(says(expectation, sessionId, presented, result.record()).get());
    }
    return result.record();
  }

  /** complete by {@code presented}, which must answer Written: the record it answered. */
  OrderRecord completeWritten(String sid, ClaimId presented, Item item, String what) {
    return written(store().complete(sid, presented, item), what, sid, presented);
  }

  /** fail by {@code presented}, which must answer Written: the record it answered. */
  OrderRecord failWritten(String sid, ClaimId presented, String error, String what) {
    return written(store().fail(sid, presented, error), what, sid, presented);
  }

  /** extend by {@code presented}, which must answer Written: the record it answered. */
  OrderRecord extendWritten(String sid, ClaimId presented, Duration lease, String what) {
    return written(store().extend(sid, presented, lease), what, sid, presented);
  }

  /** complete by {@code presented}, which must answer Superseded: the record it answered. */
  OrderRecord completeSuperseded(String sid, ClaimId presented, Item item, String what) {
    return superseded(store().complete(sid, presented, item), what, sid, presented);
  }

  /** fail by {@code presented}, which must answer Superseded: the record it answered. */
  OrderRecord failSuperseded(String sid, ClaimId presented, String error, String what) {
    return superseded(store().fail(sid, presented, error), what, sid, presented);
  }

  /** extend by {@code presented}, which must answer Superseded: the record it answered. */
  OrderRecord extendSuperseded(String sid, ClaimId presented, Duration lease, String what) {
    return superseded(store().extend(sid, presented, lease), what, sid, presented);
  }

  OrderRecord record(OrderStore from, String sessionId, ClaimId presented) {
    Optional<OrderRecord> found = from.get(sessionId);
    assertTrue(found.isPresent(), says("get must find the order", sessionId, presented, null));
    return found.get();
  }

  OrderRecord record(String sessionId, ClaimId presented) {
    return record(store(), sessionId, presented);
  }

  /** Asserts the stored order is exactly {@code before}: nothing changed, not even updatedAt. */
  void unchanged(OrderRecord before, String sessionId, ClaimId presented, String after) {
    OrderRecord now = record(sessionId, presented);
    if (!now.equals(before)) {
      String expectation = "after " + after + " the order must be unchanged, not even updatedAt";
      fail(
          expectation
              + ", but "
              + differences(before, now)
              + "; "
              + describe(sessionId, presented, now, clock.instant()));
    }
  }

  /**
   * Asserts {@code call} throws IllegalArgumentException or NullPointerException whose message
   * names {@code argument}.
   */
  static void rejects(String argument, String sessionId, String what, Executable call) {
    Throwable thrown = null;
    try {
      call.execute();
    } catch (TestAbortedException skipped) {
      throw skipped; // the store could not be made (no server): skip, do not judge the store
    } catch (Throwable t) {
      thrown = t;
    }
    Throwable caught = thrown;
    String order = " (order '" + sessionId + "')";
    String mustThrow =
        what + " must throw IllegalArgumentException or NullPointerException naming '" + argument;
    assertNotNull(caught, () -> mustThrow + "' but returned normally" + order);
    assertTrue(
        caught instanceof IllegalArgumentException || caught instanceof NullPointerException,
        () -> mustThrow + "', before anything reaches the backend, but threw " + caught + order);
    String message = String.valueOf(caught.getMessage());
    String thrower = what + " threw " + caught.getClass().getSimpleName();
    assertTrue(
        message.contains(argument),
        () ->
            thrower
                + " whose message does not name the argument '"
                + argument
                + "': \""
                + message
                + "\""
                + order);
  }

  void absent(String sessionId, String after) {
    Optional<OrderRecord> found = store().get(sessionId);
    String nothing = "after " + after + " nothing may have been written, but get finds the order";
    assertTrue(found.isEmpty(), says(nothing, sessionId, null, found.orElse(null)));
    assertEquals(
        List.of(),
        store().orphans(sessionId),
        says("after " + after + " no orphan may have been written", sessionId, null, null));
  }

  static List<Orphan> orphans(OrderStore from, String sessionId) {
    List<Orphan> found = from.orphans(sessionId);
    assertNotNull(found, () -> "orphans must never return null (order '" + sessionId + "')");
    return found;
  }

  /** Asserts the store lists {@code expected} as the orphans of {@code sessionId}. */
  void orphansAre(List<Orphan> expected, String sessionId, ClaimId presented, String expectation) {
    assertEquals(expected, orphans(store(), sessionId), says(expectation, sessionId, presented));
  }

  Instant now() {
    return clock.instant();
  }
}
