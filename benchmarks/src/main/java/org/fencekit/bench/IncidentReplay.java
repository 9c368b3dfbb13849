package org.fencekit.bench;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.fencekit.bench.Replay.Outcome;
import org.fencekit.history.ManualClock;
import org.fencekit.store.ClaimId;
import org.fencekit.store.ClaimResult;
import org.fencekit.store.Item;
import org.fencekit.store.OrderRecord;
import org.fencekit.store.OrderSnapshot;
import org.fencekit.store.OrderStatus;
import org.fencekit.store.OrderStore;
import org.fencekit.store.WriteResult;

/**
 * Replays the incident of "A lease is not a fence" (an attempt whose lease ran out records a
 * failure over the success of the attempt that replaced it) and the related scenarios against one
 * store, and says for each what the store did.
 */
final class IncidentReplay {

  /** The replay as the main job shows it. */
  static final Replay REPLAY =
      new Replay(
          "the incident and its neighbours: stale writes after a lease ran out",
          "held: the store did what the contract says: a stale write changed nothing and was"
              + " answered Superseded, a retried settle was answered Written with nothing changed,"
              + " two deliveries at once claimed the order once. LANDED: it did not; for a stale"
              + " write, that is the lost purchase or the third charge fencekit exists to prevent.",
          stores -> {
            ManualClock clock = new ManualClock(Instant.parse("2026-09-14T12:00:00Z"));
            try (OrderStore store = stores.open(clock)) {
              return new IncidentReplay(store, clock).replayAll();
            }
          });

  /** The lease of the incident's handler. */
  static final Duration LEASE = Duration.ofMinutes(2);

  private final OrderStore store;
  private final ManualClock clock;
  private final String run = UUID.randomUUID().toString().substring(0, 8);
  private int orders;

  IncidentReplay(OrderStore store, ManualClock clock) {
    this.store = store;
    this.clock = clock;
  }

  /** Every scenario, the incident first. */
  List<Outcome> replayAll() throws Exception {
    List<Outcome> outcomes = new ArrayList<>();
    outcomes.add(staleFailureAfterSuccess());
    outcomes.add(staleCompletionOverShownItem());
    outcomes.add(staleWriteAfterNewerFailure());
    outcomes.add(secondWriteFromSettledToken());
    outcomes.add(unknownToken());
    outcomes.add(retryOfLandedSettle());
    outcomes.add(concurrentDeliveries());
    return outcomes;
  }

  private OrderSnapshot nextOrder() {
    orders++;
    return new OrderSnapshot(
        "cs_replay_" + run + "_" + orders, "esim-eu-5gb", 1, "customer@example.com", 1999, "usd");
  }

  private ClaimId claim(OrderSnapshot order) {
    ClaimResult result = store.claim(order, LEASE);
    if (!(result instanceof ClaimResult.Claimed claimed)) {
      throw new IllegalStateException("expected to claim " + order.sessionId() + ", got " + result);
    }
    return claimed.claimId();
  }

  private OrderRecord record(OrderSnapshot order) {
    return store.get(order.sessionId()).orElseThrow();
  }

  private static String kind(Object result) {
    return result.getClass().getSimpleName();
  }

  /** The incident: A's dead provider call throws after B provisioned; A records a failure. */
  private Outcome staleFailureAfterSuccess() {
    OrderSnapshot order = nextOrder();
    ClaimId a = claim(order);
    clock.advance(LEASE);
    ClaimId b = claim(order);
    store.complete(order.sessionId(), b, new Item("prov-B", "LPA:1$esim$B"));
    clock.advance(Duration.ofSeconds(40));
    WriteResult stale = store.fail(order.sessionId(), a, "provider timeout");
    OrderRecord after = record(order);
    ClaimResult retry = store.claim(order, LEASE);
    boolean held =
        stale instanceof WriteResult.Superseded
            && after.status() == OrderStatus.PROVISIONED
            && retry instanceof ClaimResult.Provisioned;
    return new Outcome(
        "the incident: stale fail after a newer success",
        held,
        "stale fail: "
            + kind(stale)
            + "; order "
            + after.status()
            + "; next retry: "
            + kind(retry)
            + (retry instanceof ClaimResult.Claimed ? " (a third charge)" : ""));
  }

  /** A stale complete must not replace the item the customer was shown. */
  private Outcome staleCompletionOverShownItem() {
    OrderSnapshot order = nextOrder();
    ClaimId a = claim(order);
    clock.advance(LEASE);
    ClaimId b = claim(order);
    Item shown = new Item("prov-B", "LPA:1$esim$B");
    store.complete(order.sessionId(), b, shown);
    WriteResult stale = store.complete(order.sessionId(), a, new Item("prov-A", "LPA:1$esim$A"));
    OrderRecord after = record(order);
    int orphans = store.orphans(order.sessionId()).size();
    boolean held =
        stale instanceof WriteResult.Superseded && shown.equals(after.item()) && orphans == 1;
    return new Outcome(
        "stale complete over the item shown",
        held,
        "stale complete: "
            + kind(stale)
            + "; item kept: "
            + shown.equals(after.item())
            + "; orphans recorded: "
            + orphans);
  }

  /** Even when the newer attempt failed, the stale attempt may not settle. */
  private Outcome staleWriteAfterNewerFailure() {
    OrderSnapshot order = nextOrder();
    ClaimId a = claim(order);
    clock.advance(LEASE);
    ClaimId b = claim(order);
    store.fail(order.sessionId(), b, "card declined upstream");
    WriteResult stale = store.complete(order.sessionId(), a, new Item("prov-A", null));
    OrderRecord after = record(order);
    boolean held = stale instanceof WriteResult.Superseded && after.status() == OrderStatus.FAILED;
    return new Outcome(
        "stale write after the newer attempt failed",
        held,
        "stale complete: " + kind(stale) + "; order " + after.status());
  }

  /** After settling, the same token may not write again (except an identical replay). */
  private Outcome secondWriteFromSettledToken() {
    OrderSnapshot order = nextOrder();
    ClaimId a = claim(order);
    store.complete(order.sessionId(), a, new Item("prov-A", "code"));
    WriteResult again = store.fail(order.sessionId(), a, "late exception handler");
    OrderRecord after = record(order);
    boolean held =
        again instanceof WriteResult.Superseded && after.status() == OrderStatus.PROVISIONED;
    return new Outcome(
        "second write from a settled token",
        held,
        "fail after complete: " + kind(again) + "; order " + after.status());
  }

  /** A made-up token, with the current fence but not the nonce, settles nothing. */
  private Outcome unknownToken() {
    OrderSnapshot order = nextOrder();
    ClaimId real = claim(order);
    ClaimId forged = new ClaimId(real.fence(), ClaimId.newNonce());
    WriteResult result = store.complete(order.sessionId(), forged, new Item("prov-X", null));
    OrderRecord after = record(order);
    boolean held =
        result instanceof WriteResult.Superseded
            && after.status() == OrderStatus.PENDING
            && real.equals(after.claimId());
    return new Outcome(
        "unknown token", held, "forged complete: " + kind(result) + "; order " + after.status());
  }

  /** A settle whose answer was lost is retried: it must be safe (Written, nothing changes). */
  private Outcome retryOfLandedSettle() {
    OrderSnapshot order = nextOrder();
    ClaimId a = claim(order);
    Item item = new Item("prov-A", "code");
    OrderRecord first = store.complete(order.sessionId(), a, item).record();
    WriteResult retry = store.complete(order.sessionId(), a, item);
    boolean held =
        retry instanceof WriteResult.Written
            && retry.record().equals(first)
            && store.orphans(order.sessionId()).isEmpty();
    return new Outcome(
        "retry of a settle that landed",
        held,
        "retried complete: " + kind(retry) + "; unchanged: " + retry.record().equals(first));
  }

  /** Two deliveries at once: exactly one claims; the other is told to retry later. */
  private Outcome concurrentDeliveries() throws Exception {
    OrderSnapshot order = nextOrder();
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      CountDownLatch start = new CountDownLatch(1);
      Callable<ClaimResult> delivery =
          () -> {
            start.await();
            return store.claim(order, LEASE);
          };
      Future<ClaimResult> first = pool.submit(delivery);
      Future<ClaimResult> second = pool.submit(delivery);
      start.countDown();
      ClaimResult x = first.get(30, TimeUnit.SECONDS);
      ClaimResult y = second.get(30, TimeUnit.SECONDS);
      int claimed =
          (x instanceof ClaimResult.Claimed ? 1 : 0) + (y instanceof ClaimResult.Claimed ? 1 : 0);
      int inFlight =
          (x instanceof ClaimResult.InFlight ? 1 : 0) + (y instanceof ClaimResult.InFlight ? 1 : 0);
      return new Outcome(
          "two concurrent deliveries",
          claimed == 1 && inFlight == 1,
          claimed + " claimed, " + inFlight + " told to retry (409)");
    } finally {
      pool.shutdownNow();
    }
  }
}
