package org.fencekit.fulfilment.scenarios;

import static org.fencekit.fulfilment.scenarios.ScenarioRun.HEARTBEAT;
import static org.fencekit.fulfilment.scenarios.ScenarioRun.LEASE;
import static org.fencekit.fulfilment.scenarios.ScenarioRun.PROVIDER_TIMEOUT;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.function.Consumer;
import org.fencekit.fulfilment.CheckoutEvent;
import org.fencekit.store.OrderStatus;

/**
 * The failure sequences every Checkout fulfilment handler must survive, each with a stable id and a
 * rule in plain words. Each one asserts the purchases made per order, the final record, the orphans
 * kept and reported, and the HTTP answers: by their effect on Stripe (2xx stops it, anything else
 * makes it retry) unless the run holds them to fencekit's exact statuses, which the scenarios name.
 */
public enum Scenario {

  /** Two deliveries of one event at once. */
  S01_CONCURRENT_DELIVERIES(
      "s01_concurrentDeliveriesBuyOnce",
      "two concurrent deliveries buy one item; the loser is asked to retry later (409)",
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
          + " and every delivery meanwhile is asked to retry (409)",
      Scenario::slowCallWithHeartbeats),

  /** Stripe sends the same session under a new event id. */
  S12_REDELIVERY_NEW_EVENT_ID(
      "s12_redeliveryWithNewEventIdBuysOnce",
      "a redelivery of the session under a different event id buys nothing more",
      Scenario::redeliveryNewEventId),

  /** Stripe does not promise the order of events, nor that every one arrives. */
  S13_PAYMENT_EVENTS_IN_ANY_ORDER(
      "s13_paymentEventsInAnyOrderBuyOnceAfterPayment",
      "async_payment_succeeded is fulfilled whether its unpaid checkout.session.completed came"
          + " first, comes later, never comes or came to another instance: one purchase after"
          + " payment, none before",
      Scenario::paymentEventsInAnyOrder),

  /** A 100% coupon. */
  S14_FREE_ORDER(
      "s14_freeOrderIsFulfilled",
      "a session with nothing to pay (no_payment_required: a free order, a 100% coupon) is"
          + " fulfilled like a paid one",
      Scenario::freeOrder),

  /** The provider bought, and the answer was lost. */
  S15_UNKNOWN_PROVIDER_OUTCOME(
      "s15_unknownProviderOutcomeRetriedWithSameKey",
      "a provider call that bought and then timed out asks Stripe to retry, and every retry (same"
          + " instance or another, the same event or a new one, after any number of failures)"
          + " buys with the same idempotency key: one purchase, provisioned with it",
      Scenario::unknownProviderOutcome),

  /** The instance that failed takes the retry. */
  S16_RETRY_IN_SAME_PROCESS(
      "s16_retryInSameProcessSettlesWithNewToken",
      "the instance whose attempt failed takes Stripe's retry and settles with the token of its"
          + " new claim, not the one it held before: provisioned, no orphan",
      Scenario::retryInSameProcess),

  /** A heartbeat must renew the whole lease. */
  S17_HEARTBEAT_KEEPS_FULL_LEASE(
      "s17_eachHeartbeatKeepsOrderForFullLease",
      "each heartbeat keeps the order for a full lease: a delivery just before the lease the"
          + " handler last obtained would lapse is asked to retry and claims nothing",
      Scenario::heartbeatKeepsFullLease),

  /** A heartbeat learns the order was taken over. */
  S18_SUPERSEDED_HEARTBEAT(
      "s18_supersededHeartbeatStopsAndTellsCall",
      "a heartbeat answered Superseded tells the provider call at once that it lost the order,"
          + " and the heartbeats stop",
      Scenario::supersededHeartbeat),

  /** The same cart bought twice is two orders. */
  S19_TWO_ORDERS_ONE_CART(
      "s19_twoOrdersOfOneCartBuyTwice",
      "two orders of the same cart by the same customer are two purchases: the idempotency key"
          + " names the order, not the cart",
      Scenario::twoOrdersOfOneCart),

  /** Heartbeats cannot reach the store. */
  S20_CUT_OFF_BEFORE_LEASE_LAPSES(
      "s20_callCutOffBeforeUnrenewedLeaseLapses",
      "when heartbeats cannot reach the store, the call is cut off (told, and its delivery asked"
          + " to retry) before the lease it last renewed lapses, so no second attempt calls the"
          + " provider while the first still may",
      Scenario::cutOffBeforeLeaseLapses),

  /** A provider that never answers. */
  S21_PROVIDER_TIMEOUT(
      "s21_hungProviderCallGivenUpAtTimeout",
      "a provider call that never answers is given up at the provider timeout, heartbeats"
          + " notwithstanding, and the retry buys once with the same key",
      Scenario::providerTimeout);

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
    run.expect().answered(both, 409);
    run.provider().release(1);
    run.expect().answered(both, 200, 409);
    run.expect().purchases("order", 1);
    run.expect().status("order", OrderStatus.PROVISIONED);
    run.expect().claimsGranted("order", 1);
  }

  // A claims and hangs; A's process pauses past the lease; B re-claims and provisions; A resumes.
  private static Delivery overrun(ScenarioRun run, Instance a, Instance b) {
    run.provider().next(Behaviour.hang());
    Delivery slow = a.deliver(run.paid("order"));
    run.provider().awaitCall(1);
    a.freeze();
    run.advance(LEASE);
    Delivery fresh = b.deliverAndAwait(run.paid("order"));
    run.expect().answer(fresh, 200);
    a.thaw();
    return slow;
  }

  private static void leaseOverrun(ScenarioRun run) {
    Instance a = run.instance("A");
    Instance b = run.instance("B");
    Delivery slow = overrun(run, a, b);
    run.provider().releaseWithFailure(1, "provider outage", true);
    run.expect().answer(slow, ANY_ANSWER);
    run.expect().status("order", OrderStatus.PROVISIONED);
    run.expect().itemIsPurchase("order", 1);
    Delivery retry = b.deliverAndAwait(run.paid("order"));
    run.expect().answer(retry, 200);
    run.expect().purchases("order", 1);
    run.expect().claimsGranted("order", 2);
  }

  private static void staleCompletion(ScenarioRun run) {
    Instance a = run.instance("A");
    Instance b = run.instance("B");
    run.provider().honourIdempotencyKeys(false); // so A's late success is a second purchase
    Delivery slow = overrun(run, a, b);
    run.provider().release(1);
    run.expect().answer(slow, ANY_ANSWER);
    run.expect().status("order", OrderStatus.PROVISIONED);
    run.expect().itemIsPurchase("order", 1);
    run.expect().purchases("order", 2);
    run.expect().orphans("order", 2);
    run.expect().reported("order", 2);
    Delivery retry = b.deliverAndAwait(run.paid("order"));
    run.expect().answer(retry, 200);
    run.expect().purchases("order", 2);
    run.expect().reported("order", 2);
  }

  private static void crashBeforePurchase(ScenarioRun run) {
    Instance a = run.instance("A");
    Instance b = run.instance("B");
    run.provider().next(Behaviour.crashBeforeBuying());
    a.deliver(run.paid("order"));
    run.provider().awaitCall(1);
    run.advance(Duration.ofMinutes(1));
    Delivery early = b.deliverAndAwait(run.paid("order"));
    run.expect().answer(early, 409);
    run.advance(LEASE);
    Delivery retry = b.deliverAndAwait(run.paid("order"));
    run.expect().answer(retry, 200);
    boughtOnce(run, "order");
  }

  private static void crashAfterPurchase(ScenarioRun run) {
    Instance a = run.instance("A");
    Instance b = run.instance("B");
    run.provider().next(Behaviour.crashAfterBuying());
    a.deliver(run.paid("order"));
    run.provider().awaitCall(1);
    run.advance(LEASE);
    Delivery retry = b.deliverAndAwait(run.paid("order"));
    run.expect().answer(retry, 200);
    boughtOnce(run, "order");
  }

  private static void unpaidThenPaid(ScenarioRun run) {
    Instance a = run.instance("A");
    Delivery unpaid = a.deliverAndAwait(run.unpaid("order"));
    run.expect().answer(unpaid, 200);
    run.expect().purchases("order", 0);
    run.expect().notClaimed("order");
    Delivery paid = a.deliverAndAwait(run.asyncSucceeded("order"));
    run.expect().answer(paid, 200);
    run.expect().purchases("order", 1);
    run.expect().status("order", OrderStatus.PROVISIONED);
  }

  private static void asyncPaymentFailed(ScenarioRun run) {
    Instance a = run.instance("A");
    Delivery unpaid = a.deliverAndAwait(run.unpaid("order"));
    run.expect().answer(unpaid, 200);
    Delivery failed = a.deliverAndAwait(run.asyncFailed("order"));
    run.expect().answer(failed, 200);
    run.expect().purchases("order", 0);
    run.expect().notClaimed("order");
  }

  private static void duplicateAfterSuccess(ScenarioRun run) {
    Instance a = run.instance("A");
    Instance b = run.instance("B");
    CheckoutEvent paid = run.paid("order");
    Delivery first = a.deliverAndAwait(paid);
    run.expect().answer(first, 200);
    Delivery again = b.deliverAndAwait(paid);
    run.expect().answer(again, 200);
    Delivery third = a.deliverAndAwait(paid);
    run.expect().answer(third, 200);
    run.expect().purchases("order", 1);
    run.expect().claimsGranted("order", 1);
  }

  private static void storeDownDuringComplete(ScenarioRun run) {
    Instance a = run.instance("A");
    Instance b = run.instance("B");
    for (boolean lands : new boolean[] {true, false}) {
      String order = lands ? "landed" : "lost";
      a.storeFailsFrom("complete", lands);
      Delivery first = a.deliverAndAwait(run.paid(order));
      run.expect().answer(first, NOT_2XX);
      a.reconnect();
      run.advance(LEASE);
      Delivery retry = b.deliverAndAwait(run.paid(order));
      run.expect().answer(retry, 200);
      run.expect().purchases(order, 1);
      run.expect().status(order, OrderStatus.PROVISIONED);
      run.expect().itemIsPurchase(order, 1);
      run.expect().noFailAfterUnknownComplete();
      run.expect().neverFailed(order);
    }
  }

  private static void providerFailureThenRetry(ScenarioRun run) {
    Instance a = run.instance("A");
    Instance b = run.instance("B");
    run.provider().next(Behaviour.refuse("out of stock at the provider"));
    CheckoutEvent paid = run.paid("order");
    Delivery first = a.deliverAndAwait(paid);
    run.expect().answer(first, NOT_2XX);
    run.expect().status("order", OrderStatus.FAILED);
    run.expect().lastErrorContains("order", "out of stock at the provider");
    Delivery retry = b.deliverAndAwait(paid); // Stripe's retry: the same event
    run.expect().answer(retry, 200);
    run.expect().purchases("order", 1);
    run.expect().status("order", OrderStatus.PROVISIONED);
    run.expect().lastErrorContains("order", "out of stock at the provider");
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
        run.expect().answer(other, 409);
      }
      if (beat % 5 == 0) {
        Delivery same = a.deliverAndAwait(run.paid("order"));
        run.expect().answer(same, 409);
      }
    }
    run.provider().release(1);
    run.expect().answer(slow, 200);
    run.expect().purchases("order", 1);
    run.expect().status("order", OrderStatus.PROVISIONED);
    run.expect().orphans("order");
    run.expect().reported("order");
    run.expect().claimsGranted("order", 1);
  }

  private static void redeliveryNewEventId(ScenarioRun run) {
    Instance a = run.instance("A");
    Instance b = run.instance("B");
    Delivery first = a.deliverAndAwait(run.paid("order"));
    run.expect().answer(first, 200);
    Delivery redelivered = b.deliverAndAwait(run.paid("order"));
    run.expect().answer(redelivered, 200);
    run.expect().purchases("order", 1);
    run.expect().claimsGranted("order", 1);
  }

  private static void paymentEventsInAnyOrder(ScenarioRun run) {
    Instance a = run.instance("A");
    Instance b = run.instance("B");
    // async_payment_succeeded first, at B; the session's unpaid completed comes later, at A
    Delivery paidFirst = b.deliverAndAwait(run.asyncSucceeded("early"));
    run.expect().answer(paidFirst, 200);
    run.expect().purchases("early", 1);
    run.expect().status("early", OrderStatus.PROVISIONED);
    Delivery lateUnpaid = a.deliverAndAwait(run.unpaid("early"));
    run.expect().answer(lateUnpaid, 200);
    boughtOnce(run, "early");
    // async_payment_succeeded alone: its completed never arrives
    Delivery alone = a.deliverAndAwait(run.asyncSucceeded("alone"));
    run.expect().answer(alone, 200);
    run.expect().purchases("alone", 1);
    run.expect().status("alone", OrderStatus.PROVISIONED);
    // unpaid at A, paid at B
    Delivery unpaid = a.deliverAndAwait(run.unpaid("split"));
    run.expect().answer(unpaid, 200);
    run.expect().purchases("split", 0);
    run.expect().notClaimed("split");
    Delivery paid = b.deliverAndAwait(run.asyncSucceeded("split"));
    run.expect().answer(paid, 200);
    run.expect().purchases("split", 1);
    run.expect().status("split", OrderStatus.PROVISIONED);
  }

  private static void freeOrder(ScenarioRun run) {
    Instance a = run.instance("A");
    Delivery free = a.deliverAndAwait(run.free("order"));
    run.expect().answer(free, 200);
    boughtOnce(run, "order");
    run.expect().claimsGranted("order", 1);
  }

  private static void unknownProviderOutcome(ScenarioRun run) {
    Instance a = run.instance("A");
    Instance b = run.instance("B");
    run.provider().next(Behaviour.buyThenTimeOut(), Behaviour.buyThenTimeOut());
    CheckoutEvent paid = run.paid("order");
    Delivery first = a.deliverAndAwait(paid);
    run.expect().answer(first, NOT_2XX);
    run.expect().purchases("order", 1);
    run.advance(LEASE);
    Delivery again = a.deliverAndAwait(paid); // Stripe's retry of the same event, same instance
    run.expect().answer(again, NOT_2XX);
    run.advance(LEASE);
    Delivery redelivered = b.deliverAndAwait(run.paid("order")); // a new event, another instance
    run.expect().answer(redelivered, 200);
    boughtOnce(run, "order");
  }

  private static void retryInSameProcess(ScenarioRun run) {
    Instance a = run.instance("A");
    run.provider().next(Behaviour.refuse("out of stock at the provider"));
    CheckoutEvent paid = run.paid("order");
    Delivery first = a.deliverAndAwait(paid);
    run.expect().answer(first, NOT_2XX);
    run.advance(LEASE);
    Delivery retry = a.deliverAndAwait(paid);
    run.expect().answer(retry, 200);
    run.expect().orphans("order");
    run.expect().reported("order");
    run.expect().status("order", OrderStatus.PROVISIONED);
    run.expect().purchases("order", 1);
    run.expect().itemIsPurchase("order", 1);
    run.expect().claimsGranted("order", 2);
  }

  // Each round: a heartbeat's worth of time, then A pauses and B comes just before A's lapse.
  private static void heartbeatKeepsFullLease(ScenarioRun run) {
    Instance a = run.instance("A");
    Instance b = run.instance("B");
    CheckoutEvent paid = run.paid("order");
    Delivery slow = hangingCall(run, a, paid);
    for (int round = 1; round <= 3; round++) {
      run.advance(HEARTBEAT);
      Instant lapse = run.leaseObtained(a, "order");
      a.freeze();
      run.advanceTo(lapse.minusMillis(1));
      Delivery other = b.deliverAndAwait(paid);
      run.expect().answer(other, 409);
      run.expect().claimsGranted("order", 1);
      a.thaw();
    }
    run.provider().release(1);
    run.expect().answer(slow, 200);
    run.expect().purchases("order", 1);
    run.expect().status("order", OrderStatus.PROVISIONED);
    run.expect().claimsGranted("order", 1);
  }

  private static void supersededHeartbeat(ScenarioRun run) {
    Instance a = run.instance("A");
    Instance b = run.instance("B");
    run.provider().next(Behaviour.hang(), Behaviour.hang());
    CheckoutEvent paid = run.paid("order");
    Delivery slow = a.deliver(paid);
    run.provider().awaitCall(1);
    run.advance(HEARTBEAT);
    a.freeze();
    run.advanceTo(run.leaseObtained(a, "order"));
    Delivery fresh = b.deliver(paid);
    run.provider().awaitCall(2);
    a.thawOneTimer(); // A's overdue heartbeat alone: B holds the order now
    run.expect().callCutOff(1);
    a.thaw();
    run.advance(HEARTBEAT.multipliedBy(3));
    run.expect().noExtendAfterSuperseded();
    run.provider().release(2);
    run.expect().answer(fresh, 200);
    run.provider().release(1);
    run.expect().answer(slow, ANY_ANSWER);
    boughtOnce(run, "order");
    run.expect().claimsGranted("order", 2);
  }

  private static void twoOrdersOfOneCart(ScenarioRun run) {
    Instance a = run.instance("A");
    Instance b = run.instance("B");
    Delivery first = a.deliverAndAwait(run.paid("first"));
    run.expect().answer(first, 200);
    Delivery second = b.deliverAndAwait(run.paid("second"));
    run.expect().answer(second, 200);
    run.expect().purchases("first", 1);
    run.expect().purchases("second", 1);
    run.expect().itemIsPurchase("first", 1);
    run.expect().itemIsPurchase("second", 1);
  }

  private static void cutOffBeforeLeaseLapses(ScenarioRun run) {
    Instance a = run.instance("A");
    Instance b = run.instance("B");
    CheckoutEvent paid = run.paid("order");
    Delivery slow = hangingCall(run, a, paid);
    run.advance(HEARTBEAT);
    a.cutOffFromStore();
    Instant lapse = run.leaseObtained(a, "order");
    run.advanceTo(lapse.minusMillis(1));
    run.expect().answer(slow, NOT_2XX);
    run.expect().callCutOff(1);
    run.expect().claimsGranted("order", 1);
    run.advanceTo(lapse);
    Delivery retry = b.deliverAndAwait(paid);
    run.expect().answer(retry, 200);
    a.reconnect();
    run.provider().release(1);
    boughtOnce(run, "order");
    run.expect().claimsGranted("order", 2);
  }

  private static void providerTimeout(ScenarioRun run) {
    Instance a = run.instance("A");
    Instance b = run.instance("B");
    CheckoutEvent paid = run.paid("order");
    Delivery slow = hangingCall(run, a, paid);
    run.advance(PROVIDER_TIMEOUT);
    run.expect().answer(slow, NOT_2XX);
    run.expect().callCutOff(1);
    run.advance(LEASE);
    Delivery retry = b.deliverAndAwait(paid);
    run.expect().answer(retry, 200);
    run.provider().release(1);
    boughtOnce(run, "order");
    run.expect().claimsGranted("order", 2);
  }

  /** The order ends provisioned with its first purchase, the only one. */
  private static void boughtOnce(ScenarioRun run, String order) {
    run.expect().purchases(order, 1);
    run.expect().status(order, OrderStatus.PROVISIONED);
    run.expect().itemIsPurchase(order, 1);
  }

  /** Delivers {@code event} to {@code instance} and waits until its provider call hangs. */
  private static Delivery hangingCall(ScenarioRun run, Instance instance, CheckoutEvent event) {
    int call = run.provider().calls().size() + 1;
    run.provider().next(Behaviour.hang());
    Delivery delivery = instance.deliver(event);
    run.provider().awaitCall(call);
    return delivery;
  }
}
