package org.fencekit.faults;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.fencekit.history.Answer;
import org.fencekit.history.ManualClock;
import org.fencekit.store.ClaimId;
import org.fencekit.store.ClaimResult;
import org.fencekit.store.ForwardingOrderStore;
import org.fencekit.store.Item;
import org.fencekit.store.OrderSnapshot;
import org.fencekit.store.OrderStore;
import org.fencekit.store.StoreUnavailableException;
import org.fencekit.store.WriteResult;
import org.fencekit.store.memory.MemoryOrderStore;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The harness against stores broken on purpose: each check must fire on its break, every run. */
@DisplayName("the fault harness catches each broken rule")
class FaultHarnessSelfTest {

  private static final Instant START = Instant.parse("2026-01-01T00:00:00Z");

  private static FaultReport run(BrokenStore.Break mode) {
    ManualClock clock = new ManualClock(START);
    try (BrokenStore store = new BrokenStore(mode, clock)) {
      return FaultRun.builder("self-test/" + mode.name().toLowerCase(), store, clock)
          .fault(store::breakNow)
          // enough calls after the break that each broken rule is met on every run, not most
          .callsAfterFault(200)
          .recoveryBound(Duration.ofMillis(500))
          .run();
    }
  }

  @ParameterizedTest(name = "check ({1}) fires on {0}")
  @CsvSource({
    "WRITTEN_NOT_KEPT, a",
    "SUPERSEDED_LANDS, b",
    "REFUSED_LANDS, c",
    "FENCES_RESTART, d",
    "ORPHAN_DROPPED, e",
    "STAYS_DOWN, f",
    "UNDOCUMENTED_EXCEPTION, g"
  })
  void eachCheckFires(BrokenStore.Break mode, char check) {
    for (int run = 0; run < 3; run++) {
      FaultReport report = run(mode);
      assertTrue(
          report.violations(check) > 0,
          "check (" + check + ") did not fire on " + mode + ": " + report.summary());
    }
  }

  @Test
  @DisplayName("a healthy store shows no violation, and its summary counts every call")
  void healthyStoreIsClean() {
    FaultReport report = run(BrokenStore.Break.NONE).assertNoViolations();
    int answered = 0;
    for (Answer answer : Answer.values()) {
      answered += report.count(answer);
    }
    assertEquals(report.calls(), answered, report.summary());
    assertTrue(report.count(Answer.SUPERSEDED) > 0, "no superseded write: " + report.summary());
    assertTrue(report.count(Answer.CLAIMED) > 0, report.summary());
    assertTrue(report.summary().contains("violations=0"), report.summary());
  }

  @Test
  @DisplayName("an outage whose failures say 'outcome unknown' and write nothing is no violation")
  void honestOutageIsClean() {
    ManualClock clock = new ManualClock(START);
    AtomicBoolean down = new AtomicBoolean();
    // 40 refused calls: fewer than the 300 ms outage this was met on idle cores (4 threads, each
    // calling again 20 ms after a failure)
    CountDownLatch refused = new CountDownLatch(40);
    OrderStore store = new Outage(new MemoryOrderStore(clock), down, refused);
    FaultReport report =
        FaultRun.builder("self-test/honest-outage", store, clock)
            .fault(
                () -> {
                  down.set(true);
                  // over once calls have met it: a fixed 300 ms could pass with no load thread
                  // scheduled on a busy machine, and then no call saw the outage
                  boolean met = refused.await(60, TimeUnit.SECONDS);
                  down.set(false);
                  assertTrue(met, "the outage met " + (40 - refused.getCount()) + " calls of 40");
                  return 1;
                })
            .run()
            .assertNoViolations();
    assertTrue(report.count(Answer.UNAVAILABLE_UNKNOWN) > 0, report.summary());
  }

  @Test
  @DisplayName("a fault that cannot be injected fails the run, saying why in the first line")
  void faultThatFailsIsReportedWithItsCause() {
    ManualClock clock = new ManualClock(START);
    try (MemoryOrderStore store = new MemoryOrderStore(clock)) {
      IllegalStateException e =
          assertThrows(
              IllegalStateException.class,
              () ->
                  FaultRun.builder("self-test/fault-fails", store, clock)
                      .fault(
                          () -> {
                            throw new IllegalStateException("replica 7004 was not promoted");
                          })
                      .run());
      // a build's summary prints only this line: the cause must be in it, not only in the trace
      assertTrue(e.getMessage().contains("replica 7004 was not promoted"), e.getMessage());
    }
  }

  @Test
  @DisplayName("a store that forgets everything is clean when the run is told the fault loses data")
  void announcedDataLossIsClean() {
    ManualClock clock = new ManualClock(START);
    BrokenStore store = new BrokenStore(BrokenStore.Break.FENCES_RESTART, clock);
    FaultRun.builder("self-test/announced-data-loss", store, clock)
        .fault(store::breakNow)
        .dataLoss(true)
        .run()
        .assertNoViolations();
  }

  @Test
  @DisplayName(
      "after a data loss, a token from before it that settles the recreated order is caught")
  void oldTokenSettlingRecreatedOrderIsCaught() {
    ManualClock clock = new ManualClock(START);
    OrderStore inner = new MemoryOrderStore(clock);
    // Forgets everything at the fault, and then takes any token for the current claim.
    AtomicBoolean lost = new AtomicBoolean();
    OrderStore[] now = {inner};
    OrderStore store =
        new ForwardingOrderStore(inner) {
          @Override
          public ClaimResult claim(OrderSnapshot snapshot, Duration lease) {
            return now[0].claim(snapshot, lease);
          }

          @Override
          public WriteResult complete(String sessionId, ClaimId claimId, Item item) {
            return now[0].complete(sessionId, current(sessionId, claimId), item);
          }

          @Override
          public WriteResult fail(String sessionId, ClaimId claimId, String error) {
            return now[0].fail(sessionId, current(sessionId, claimId), error);
          }

          @Override
          public WriteResult extend(String sessionId, ClaimId claimId, Duration lease) {
            return now[0].extend(sessionId, current(sessionId, claimId), lease);
          }

          private ClaimId current(String sessionId, ClaimId presented) {
            ClaimId held = now[0].get(sessionId).map(r -> r.claimId()).orElse(null);
            return lost.get() && held != null ? held : presented;
          }

          @Override
          public java.util.Optional<org.fencekit.store.OrderRecord> get(String sessionId) {
            return now[0].get(sessionId);
          }

          @Override
          public java.util.List<org.fencekit.store.Orphan> orphans(String sessionId) {
            return now[0].orphans(sessionId);
          }
        };
    FaultReport report =
        FaultRun.builder("self-test/old-token-after-loss", store, clock)
            .fault(
                () -> {
                  now[0] = new MemoryOrderStore(clock);
                  lost.set(true);
                  return 1;
                })
            .dataLoss(true)
            .run();
    assertTrue(report.violations('b') > 0, report.summary());
  }

  /**
   * A store that is down, saying "outcome unknown" and writing nothing, while {@code down}; counts
   * {@code refused} down at each refusal.
   */
  private static final class Outage extends ForwardingOrderStore {
    private final AtomicBoolean down;
    private final CountDownLatch refused;

    Outage(OrderStore delegate, AtomicBoolean down, CountDownLatch refused) {
      super(delegate);
      this.down = down;
      this.refused = refused;
    }

    private void check(String operation) {
      if (down.get()) {
        refused.countDown();
        throw new StoreUnavailableException("outage", operation, null, true, "down", null);
      }
    }

    @Override
    public ClaimResult claim(OrderSnapshot snapshot, Duration lease) {
      check("claim");
      return super.claim(snapshot, lease);
    }

    @Override
    public WriteResult complete(String sessionId, ClaimId claimId, Item item) {
      check("complete");
      return super.complete(sessionId, claimId, item);
    }

    @Override
    public WriteResult fail(String sessionId, ClaimId claimId, String error) {
      check("fail");
      return super.fail(sessionId, claimId, error);
    }

    @Override
    public WriteResult extend(String sessionId, ClaimId claimId, Duration lease) {
      check("extend");
      return super.extend(sessionId, claimId, lease);
    }

    @Override
    public java.util.Optional<org.fencekit.store.OrderRecord> get(String sessionId) {
      check("get");
      return super.get(sessionId);
    }
  }
}
