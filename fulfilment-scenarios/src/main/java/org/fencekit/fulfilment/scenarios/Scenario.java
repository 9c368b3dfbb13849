package org.fencekit.fulfilment.scenarios;

import java.util.function.Consumer;
import java.util.stream.Stream;

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
      ScenarioSteps::concurrentDeliveries),

  /** The seed's incident: a late failure over a newer attempt's success. */
  S02_LEASE_OVERRUN(
      "s02_leaseOverrunCannotUndoProvisioned",
      "a call that outlives its lease and then throws cannot fail the order another attempt"
          + " provisioned",
      ScenarioSteps::leaseOverrun),

  /** A late success after a newer attempt's success. */
  S03_STALE_COMPLETION(
      "s03_staleCompletionIsReportedOrphan",
      "a call that outlives its lease and then succeeds keeps the customer's item and reports its"
          + " own purchase as an orphan, once",
      ScenarioSteps::staleCompletion),

  /** A crash after the claim, before the provider was called. */
  S04_CRASH_BEFORE_PURCHASE(
      "s04_crashBeforePurchaseRetryBuysOnce",
      "a crash before the purchase: the retry after the lease buys once",
      ScenarioSteps::crashBeforePurchase),

  /** A crash after the provider answered, before the record was written. */
  S05_CRASH_AFTER_PURCHASE(
      "s05_crashAfterPurchaseRetryGetsSameItem",
      "a crash between the provider's answer and the record: the retry gets the same item, one"
          + " purchase",
      ScenarioSteps::crashAfterPurchase),

  /** A delayed payment method. */
  S06_UNPAID_THEN_PAID(
      "s06_unpaidThenAsyncSucceededBuysOnceAfterPayment",
      "an unpaid completion buys nothing; async_payment_succeeded then buys once",
      ScenarioSteps::unpaidThenPaid),

  /** A delayed payment that fails. */
  S07_ASYNC_PAYMENT_FAILED(
      "s07_asyncPaymentFailedBuysNothing",
      "async_payment_failed buys nothing and claims nothing",
      ScenarioSteps::asyncPaymentFailed),

  /** Stripe delivers at least once. */
  S08_DUPLICATE_AFTER_SUCCESS(
      "s08_duplicateDeliveryAfterSuccessBuysNothing",
      "a duplicate delivery after success answers 200 and buys nothing",
      ScenarioSteps::duplicateAfterSuccess),

  /** The store fails on the complete, with its outcome unknown. */
  S09_STORE_DOWN_DURING_COMPLETE(
      "s09_storeDownDuringCompleteNeverFailsAndBuysOnce",
      "the store failing during complete (outcome unknown) is answered for a retry, never failed,"
          + " and the retry leaves one purchase, provisioned",
      ScenarioSteps::storeDownDuringComplete),

  /** The provider refuses once. */
  S10_PROVIDER_FAILURE_THEN_RETRY(
      "s10_providerFailureThenRetryProvisionsKeepingError",
      "a provider failure fails the order for a retry, which provisions it and keeps the last"
          + " error",
      ScenarioSteps::providerFailureThenRetry),

  /** A slow provider call kept owned by heartbeats. */
  S11_SLOW_CALL_HEARTBEATS(
      "s11_slowCallHeartbeatsKeepOneOwner",
      "a provider call that outlives several leases but heartbeats buys once, orphans nothing,"
          + " and every delivery meanwhile is asked to retry (409)",
      ScenarioSteps::slowCallWithHeartbeats),

  /** Stripe sends the same session under a new event id. */
  S12_REDELIVERY_NEW_EVENT_ID(
      "s12_redeliveryWithNewEventIdBuysOnce",
      "a redelivery of the session under a different event id buys nothing more",
      ScenarioSteps::redeliveryNewEventId),

  /** Stripe does not promise the order of events, nor that every one arrives. */
  S13_PAYMENT_EVENTS_IN_ANY_ORDER(
      "s13_paymentEventsInAnyOrderBuyOnceAfterPayment",
      "async_payment_succeeded is fulfilled whether its unpaid checkout.session.completed came"
          + " first, comes later, never comes or came to another instance: one purchase after"
          + " payment, none before",
      ScenarioSteps::paymentEventsInAnyOrder),

  /** A 100% coupon. */
  S14_FREE_ORDER(
      "s14_freeOrderIsFulfilled",
      "a session with nothing to pay (no_payment_required: a free order, a 100% coupon) is"
          + " fulfilled like a paid one",
      ScenarioSteps::freeOrder),

  /** The provider bought, and the answer was lost. */
  S15_UNKNOWN_PROVIDER_OUTCOME(
      "s15_unknownProviderOutcomeRetriedWithSameKey",
      "a provider call that bought and then timed out asks Stripe to retry, and every retry (same"
          + " instance or another, the same event or a new one, after any number of failures)"
          + " buys with the same idempotency key: one purchase, provisioned with it",
      ScenarioSteps::unknownProviderOutcome),

  /** The instance that failed takes the retry. */
  S16_RETRY_IN_SAME_PROCESS(
      "s16_retryInSameProcessSettlesWithNewToken",
      "the instance whose attempt failed takes Stripe's retry and settles with the token of its"
          + " new claim, not the one it held before: provisioned, no orphan",
      ScenarioSteps::retryInSameProcess),

  /** A heartbeat must renew the whole lease. */
  S17_HEARTBEAT_KEEPS_FULL_LEASE(
      "s17_eachHeartbeatKeepsOrderForFullLease",
      "each heartbeat keeps the order for a full lease: a delivery just before the lease the"
          + " handler last obtained would lapse is asked to retry and claims nothing",
      ScenarioSteps::heartbeatKeepsFullLease),

  /** A heartbeat learns the order was taken over. */
  S18_SUPERSEDED_HEARTBEAT(
      "s18_supersededHeartbeatStopsAndTellsCall",
      "a heartbeat answered Superseded tells the provider call at once that it lost the order,"
          + " and the heartbeats stop",
      ScenarioSteps::supersededHeartbeat),

  /** The same cart bought twice is two orders. */
  S19_TWO_ORDERS_ONE_CART(
      "s19_twoOrdersOfOneCartBuyTwice",
      "two orders of the same cart by the same customer are two purchases: the idempotency key"
          + " names the order, not the cart",
      ScenarioSteps::twoOrdersOfOneCart),

  /** Heartbeats cannot reach the store. */
  S20_CUT_OFF_BEFORE_LEASE_LAPSES(
      "s20_callCutOffBeforeUnrenewedLeaseLapses",
      "when heartbeats cannot reach the store, the call is cut off (told, and its delivery asked"
          + " to retry) before the lease it last renewed lapses, so no second attempt calls the"
          + " provider while the first still may",
      ScenarioSteps::cutOffBeforeLeaseLapses),

  /** A provider that never answers. */
  S21_PROVIDER_TIMEOUT(
      "s21_hungProviderCallGivenUpAtTimeout",
      "a provider call that never answers is given up at the provider timeout, heartbeats"
          + " notwithstanding, and the retry buys once with the same key",
      ScenarioSteps::providerTimeout),

  /** An order of several items of a product the shop does not sell most. */
  S22_BOUGHT_WHAT_WAS_ORDERED(
      "s22_boughtWhatWasOrdered",
      "the provider is asked for the order's product and quantity, for its amount, whatever the"
          + " order (three of one product, two of another), on the first attempt and on Stripe's"
          + " retry at another instance",
      ScenarioSteps::boughtWhatWasOrdered),

  /** Another cart under an order's session id: a different order under one key. */
  S24_OTHER_CART_UNDER_ONE_SESSION(
      "s24_otherCartUnderOneSessionBuysNothing",
      "a paid event whose cart (product, quantity, amount) differs from the order stored under its"
          + " session id buys nothing, changes nothing and is answered for a retry (422), whether"
          + " the order failed, is held by a live attempt or was provisioned; the order's own"
          + " events still buy it once",
      ScenarioSteps::otherCartUnderOneSession);

  private final String id;
  private final String rule;
  private final Consumer<ScenarioRun> body;

  Scenario(String id, String rule, Consumer<ScenarioRun> body) {
    this.id = id;
    this.rule = rule;
    this.body = body;
  }

  /** A scenario on instances A and B, made in that order before its first step. */
  Scenario(String id, String rule, ScenarioSteps.TwoInstances body) {
    this(id, rule, run -> body.play(run, run.instance("A"), run.instance("B")));
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
    return Stream.of(values())
        .filter(scenario -> scenario.id.equals(id))
        .findFirst()
        .orElseThrow(() -> new IllegalArgumentException("no scenario has id '" + id + "'"));
  }
}
