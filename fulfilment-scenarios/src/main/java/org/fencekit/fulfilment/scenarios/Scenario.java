package org.fencekit.fulfilment.scenarios;

import static org.fencekit.fulfilment.scenarios.ScenarioRun.HEARTBEAT;
import static org.fencekit.fulfilment.scenarios.ScenarioRun.LEASE;

import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;
import org.fencekit.fulfilment.CheckoutEvent;
import org.fencekit.store.OrderStatus;

/**
 * The failure sequences every Checkout fulfilment handler must survive, each with a stable id and a
 * rule in plain words. Each one asserts the purchases made per order, the final record, the orphans
 * kept and reported, and the HTTP answers.
 */
public enum Scenario {

  /** Two deliveries of one event at once. */
  S01_CONCURRENT_DELIVERIES(
      "s01_concurrentDeliveriesBuyOnce",
      "two concurrent deliveries buy one item; the loser gets 409 to retry later",
      Scenario::concurrentDeliveries),

  /** The seed's incident: a late failure over a newer attempt's success. */
  S02_LEASE_OVERRUN(
      "s02_leaseOverrunCannotUndoProvisioned",
      "a call that outlives its lease and then throws cannot fail the order another attempt"
          + " provisioned",
      Scenario::leaseOverrun),

  /** A late success after a newer attempt's success. */
  S03_STALE_COMPLETION(
      "s03_staleCompletionIsReportedOrphan",
      "a call that outlives its lease and then succeeds keeps the customer's item and reports its"
          + " own purchase as an orphan, once",
      Scenario::staleCompletion),

  /** A crash after the claim, before the provider was called. */
  S04_CRASH_BEFORE_PURCHASE(
      "s04_crashBeforePurchaseRetryBuysOnce",
      "a crash before the purchase: the retry after the lease buys once",
      Scenario::crashBeforePurchase),

  /** A crash after the provider answered, before the record was written. */
  S05_CRASH_AFTER_PURCHASE(
      "s05_crashAfterPurchaseRetryGetsSameItem",
      "a crash between the provider's answer and the record: the retry gets the same item, one"
          + " purchase",
      Scenario::crashAfterPurchase),

  /** A delayed payment method. */
  S06_UNPAID_THEN_PAID(
      "s06_unpaidThenAsyncSucceededBuysOnceAfterPayment",
      "an unpaid completion buys nothing; async_payment_succeeded then buys once",
      Scenario::unpaidThenPaid),

  /** A delayed payment that fails. */
  S07_ASYNC_PAYMENT_FAILED(
      "s07_asyncPaymentFailedBuysNothing",
      "async_payment_failed buys nothing and claims nothing",
      Scenario::asyncPaymentFailed),

  /** Stripe delivers at least once. */
  S08_DUPLICATE_AFTER_SUCCESS(
      "s08_duplicateDeliveryAfterSuccessBuysNothing",
      "a duplicate delivery after success answers 200 and buys nothing",
      Scenario::duplicateAfterSuccess),

  /** The store fails on the complete, with its outcome unknown. */
  S09_STORE_DOWN_DURING_COMPLETE(
      "s09_storeDownDuringCompleteNeverFailsAndBuysOnce",
      "the store failing during complete (outcome unknown) is answered for a retry, never failed,"
          + " and the retry leaves one purchase, provisioned",
      Scenario::storeDownDuringComplete),

  /** The provider refuses once. */
  S10_PROVIDER_FAILURE_THEN_RETRY(
      "s10_providerFailureThenRetryProvisionsKeepingError",
      "a provider failure fails the order for a retry, which provisions it and keeps the last"
          + " error",
      Scenario::providerFailureThenRetry),

  /** A slow provider call kept owned by heartbeats. */
  S11_SLOW_CALL_HEARTBEATS(
      "s11_slowCallHeartbeatsKeepOneOwner",
      "a provider call that outlives several leases but heartbeats buys once, orphans nothing,"
          + " and every delivery meanwhile gets 409",
      Scenario::slowCallWithHeartbeats),

  /** Stripe sends the same session under a new event id. */
  S12_REDELIVERY_NEW_EVENT_ID(
      "s12_redeliveryWithNewEventIdBuysOnce",
      "a redelivery of the session under a different event id buys nothing more",
      Scenario::redeliveryNewEventId);

  private final String id;
  private final String rule;
  private final Consumer<ScenarioRun> body;

  Scenario(String id, String rule, Consumer<ScenarioRun> body) {
    this.id = id;
    this.rule = rule;
    this.body = body;
  }

  /** The stable id, also the scenario kit's test method name. */
  public String id() {
    return id;
  }

  /** The rule in plain words. */
  public String rule() {
    return rule;
  }

  /** Plays the scenario on {@code run}, throwing {@link ScenarioFailure} on the first breach. */
  public void play(ScenarioRun run) {
    body.accept(run);
  }

  /** The scenario whose id is {@code id}. */
  public static Scenario byId(String id) {
    for (Scenario scenario : values()) {
      if (scenario.id.equals(id)) {
        return scenario;
      }
    }
    throw new IllegalArgumentException("no scenario has id '" + id + "'");
  }

  private static final int[] NOT_2XX = {500, 502, 503, 504};
  private static final int[] ANY_ANSWER = {200, 409, 500, 502, 503, 504};

  private static void concurrentDeliveries(ScenarioRun run) {
    Instance a = run.instance("A");
    Instance b = run.instance("B");
    run.provider().next(Behaviour.hang());
    List<Delivery> both = run.deliverTogether(run.paid("order"), a, b);
    run.provider().awaitCall(1);
    run.expectAnswered(both, 409);
    run.provider().release(1);
    run.expectAnswered(both, 200, 409);
    run.expectPurchases("order", 1);
    run.expectStatus("order", OrderStatus.PROVISIONED);
    run.expectClaimsGranted("order", 1);
  }

  // A claims and hangs; A's process pauses past the lease; B re-claims and provisions; A resumes.
  private static Delivery overrun(ScenarioRun run, Instance a, Instance b) {
    run.provider().next(Behaviour.hang());
    Delivery slow = a.deliver(run.paid("order"));
    run.provider().awaitCall(1);
    a.freeze();
    run.advance(LEASE);
    Delivery fresh = b.deliverAndAwait(run.paid("order"));
    run.expectAnswer(fresh, 200);
    a.thaw();
    return slow;
  }

  private static void leaseOverrun(ScenarioRun run) {
    Instance a = run.instance("A");
    Instance b = run.instance("B");
    Delivery slow = overrun(run, a, b);
    run.provider().releaseWithFailure(1, "provider outage", true);
    run.expectAnswer(slow, ANY_ANSWER);
    run.expectStatus("order", OrderStatus.PROVISIONED);
    run.expectItemIsPurchase("order", 1);
    Delivery retry = b.deliverAndAwait(run.paid("order"));
    run.expectAnswer(retry, 200);
    run.expectPurchases("order", 1);
    run.expectClaimsGranted("order", 2);
  }

  private static void staleCompletion(ScenarioRun run) {
    Instance a = run.instance("A");
    Instance b = run.instance("B");
    run.provider().honourIdempotencyKeys(false); // so A's late success is a second purchase
    Delivery slow = overrun(run, a, b);
    run.provider().release(1);
    run.expectAnswer(slow, ANY_ANSWER);
    run.expectStatus("order", OrderStatus.PROVISIONED);
    run.expectItemIsPurchase("order", 1);
    run.expectPurchases("order", 2);
    run.expectOrphans("order", 2);
    run.expectReported("order", 2);
    Delivery retry = b.deliverAndAwait(run.paid("order"));
    run.expectAnswer(retry, 200);
    run.expectPurchases("order", 2);
    run.expectReported("order", 2);
  }

  private static void crashBeforePurchase(ScenarioRun run) {
    Instance a = run.instance("A");
    Instance b = run.instance("B");
    run.provider().next(Behaviour.crashBeforeBuying());
    a.deliver(run.paid("order"));
    run.provider().awaitCall(1);
    run.advance(Duration.ofMinutes(1));
    Delivery early = b.deliverAndAwait(run.paid("order"));
    run.expectAnswer(early, 409);
    run.advance(LEASE);
    Delivery retry = b.deliverAndAwait(run.paid("order"));
    run.expectAnswer(retry, 200);
    run.expectPurchases("order", 1);
    run.expectStatus("order", OrderStatus.PROVISIONED);
    run.expectItemIsPurchase("order", 1);
  }

  private static void crashAfterPurchase(ScenarioRun run) {
    Instance a = run.instance("A");
    Instance b = run.instance("B");
    run.provider().next(Behaviour.crashAfterBuying());
    a.deliver(run.paid("order"));
    run.provider().awaitCall(1);
    run.advance(LEASE);
    Delivery retry = b.deliverAndAwait(run.paid("order"));
    run.expectAnswer(retry, 200);
    run.expectPurchases("order", 1);
    run.expectStatus("order", OrderStatus.PROVISIONED);
    run.expectItemIsPurchase("order", 1);
  }

  private static void unpaidThenPaid(ScenarioRun run) {
    Instance a = run.instance("A");
    Delivery unpaid = a.deliverAndAwait(run.unpaid("order"));
    run.expectAnswer(unpaid, 200);
    run.expectPurchases("order", 0);
    run.expectNotClaimed("order");
    Delivery paid = a.deliverAndAwait(run.asyncSucceeded("order"));
    run.expectAnswer(paid, 200);
    run.expectPurchases("order", 1);
    run.expectStatus("order", OrderStatus.PROVISIONED);
  }

  private static void asyncPaymentFailed(ScenarioRun run) {
    Instance a = run.instance("A");
    Delivery unpaid = a.deliverAndAwait(run.unpaid("order"));
    run.expectAnswer(unpaid, 200);
    Delivery failed = a.deliverAndAwait(run.asyncFailed("order"));
    run.expectAnswer(failed, 200);
    run.expectPurchases("order", 0);
    run.expectNotClaimed("order");
  }

  private static void duplicateAfterSuccess(ScenarioRun run) {
    Instance a = run.instance("A");
    Instance b = run.instance("B");
    CheckoutEvent paid = run.paid("order");
    Delivery first = a.deliverAndAwait(paid);
    run.expectAnswer(first, 200);
    Delivery again = b.deliverAndAwait(paid);
    run.expectAnswer(again, 200);
    Delivery third = a.deliverAndAwait(paid);
    run.expectAnswer(third, 200);
    run.expectPurchases("order", 1);
    run.expectClaimsGranted("order", 1);
  }

  private static void storeDownDuringComplete(ScenarioRun run) {
    Instance a = run.instance("A");
    Instance b = run.instance("B");
    for (boolean lands : new boolean[] {true, false}) {
      String order = lands ? "landed" : "lost";
      a.storeFailsFrom("complete", lands);
      Delivery first = a.deliverAndAwait(run.paid(order));
      run.expectAnswer(first, NOT_2XX);
      a.reconnect();
      run.advance(LEASE);
      Delivery retry = b.deliverAndAwait(run.paid(order));
      run.expectAnswer(retry, 200);
      run.expectPurchases(order, 1);
      run.expectStatus(order, OrderStatus.PROVISIONED);
      run.expectItemIsPurchase(order, 1);
      run.expectNoFailAfterUnknownComplete();
      run.expectNeverFailed(order);
    }
  }

  private static void providerFailureThenRetry(ScenarioRun run) {
    Instance a = run.instance("A");
    Instance b = run.instance("B");
    run.provider().next(Behaviour.refuse("out of stock at the provider"));
    Delivery first = a.deliverAndAwait(run.paid("order"));
    run.expectAnswer(first, NOT_2XX);
    run.expectStatus("order", OrderStatus.FAILED);
    run.expectLastErrorContains("order", "out of stock at the provider");
    Delivery retry = b.deliverAndAwait(run.paid("order"));
    run.expectAnswer(retry, 200);
    run.expectPurchases("order", 1);
    run.expectStatus("order", OrderStatus.PROVISIONED);
    run.expectLastErrorContains("order", "out of stock at the provider");
  }

  private static void slowCallWithHeartbeats(ScenarioRun run) {
    Instance a = run.instance("A");
    Instance b = run.instance("B");
    run.provider().next(Behaviour.hang());
    Delivery slow = a.deliver(run.paid("order"));
    run.provider().awaitCall(1);
    for (int beat = 1; beat <= 14; beat++) { // 7 minutes: three and a half leases
      run.advance(HEARTBEAT);
      if (beat % 4 == 0) {
        Delivery other = b.deliverAndAwait(run.paid("order"));
        run.expectAnswer(other, 409);
      }
      if (beat % 5 == 0) {
        Delivery same = a.deliverAndAwait(run.paid("order"));
        run.expectAnswer(same, 409);
      }
    }
    run.provider().release(1);
    run.expectAnswer(slow, 200);
    run.expectPurchases("order", 1);
    run.expectStatus("order", OrderStatus.PROVISIONED);
    run.expectOrphans("order");
    run.expectReported("order");
    run.expectClaimsGranted("order", 1);
  }

  private static void redeliveryNewEventId(ScenarioRun run) {
    Instance a = run.instance("A");
    Instance b = run.instance("B");
    Delivery first = a.deliverAndAwait(run.paid("order"));
    run.expectAnswer(first, 200);
    Delivery redelivered = b.deliverAndAwait(run.paid("order"));
    run.expectAnswer(redelivered, 200);
    run.expectPurchases("order", 1);
    run.expectClaimsGranted("order", 1);
  }
}
