package org.fencekit.history;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.fencekit.store.ClaimId;
import org.fencekit.store.ClaimResult;
import org.fencekit.store.ForwardingOrderStore;
import org.fencekit.store.Item;
import org.fencekit.store.OrderSnapshot;
import org.fencekit.store.OrderStore;
import org.fencekit.store.StoreUnavailableException;
import org.fencekit.store.WriteResult;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class HistoryTest {

  private static final Instant START = Instant.parse("2026-09-14T12:00:00Z");
  private static final Duration LEASE = Duration.ofSeconds(30);

  private final ManualClock clock = new ManualClock(START);
  private final History history = new History(clock);

  private static OrderSnapshot order(String sid) {
    return new OrderSnapshot(sid, "prod_1", 1, null, 1000, "eur");
  }

  @Test
  @DisplayName("a recording store answers what the store did and records each call with its answer")
  void recordsEachCall() {
    OrderStore store = history.recording(new OneOrderStore(clock), "a");
    ClaimId claimId = ((ClaimResult.Claimed) store.claim(order("cs_1"), LEASE)).claimId();
    clock.advance(Duration.ofSeconds(1));
    WriteResult done = store.complete("cs_1", claimId, new Item("p-1", null));
    store.get("cs_1");

    List<Call> calls = history.calls();
    assertEquals(3, calls.size());
    Call claim = calls.get(0);
    assertEquals(Operation.CLAIM, claim.operation());
    assertEquals(Answer.CLAIMED, claim.answer());
    assertEquals(claimId, claim.claimId(), "a claim's call carries the claim id it was granted");
    assertEquals(START, claim.at());
    Call complete = calls.get(1);
    assertSame(done, complete.result());
    assertEquals(Answer.WRITTEN, complete.answer());
    assertEquals(START.plusSeconds(1), complete.at());
    assertEquals("p-1", complete.request().item().providerOrderId());
    assertEquals(Answer.READ, calls.get(2).answer());
    assertEquals(done.record(), calls.get(2).record(), "a get's call carries the record it read");
    assertTrue(claim.precedes(complete) && complete.precedes(calls.get(2)));
    assertFalse(complete.precedes(claim));
    assertEquals(List.of("cs_1"), List.copyOf(history.byOrder().keySet()));
  }

  @Test
  @DisplayName("what the store threw is recorded, classified and thrown again to the caller")
  void recordsAndRethrowsFailures() {
    OrderStore failing =
        new ForwardingOrderStore(new OneOrderStore(clock)) {
          @Override
          public ClaimResult claim(OrderSnapshot snapshot, Duration lease) {
            throw new StoreUnavailableException(
                "test", "claim", snapshot.sessionId(), true, "the answer was lost", null);
          }
        };
    OrderStore store = history.recording(failing, "b");
    StoreUnavailableException thrown =
        assertThrows(StoreUnavailableException.class, () -> store.claim(order("cs_2"), LEASE));

    Call call = history.calls().get(0);
    assertSame(thrown, call.failure());
    assertNull(call.result());
    assertEquals(Answer.UNAVAILABLE_UNKNOWN, call.answer());
    assertTrue(call.outcomeUnknown());
    assertNull(call.claimId(), "a claim that was not granted carries no claim id");
    assertTrue(call.describe().contains("b claim(cs_2) -> unavailable-outcome-unknown"));
  }

  @Test
  @DisplayName("calls that overlap in time on two threads precede neither one the other")
  void overlappingCallsAreConcurrent() throws Exception {
    CountDownLatch bothIn = new CountDownLatch(2);
    Runnable body =
        () -> {
          bothIn.countDown();
          try {
            assertTrue(bothIn.await(10, TimeUnit.SECONDS), "the other thread never came in");
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        };
    Thread other =
        new Thread(
            () ->
                history.call(
                    "t2",
                    Request.get("cs_3"),
                    () -> {
                      body.run();
                      return null;
                    }));
    other.start();
    history.call(
        "t1",
        Request.get("cs_3"),
        () -> {
          body.run();
          return null;
        });
    other.join(10_000);
    List<Call> calls = history.calls();
    assertEquals(2, calls.size());
    assertFalse(calls.get(0).precedes(calls.get(1)));
    assertFalse(calls.get(1).precedes(calls.get(0)));
  }
}
