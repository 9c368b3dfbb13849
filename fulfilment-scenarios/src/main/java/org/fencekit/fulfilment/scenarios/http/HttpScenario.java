package org.fencekit.fulfilment.scenarios.http;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.fencekit.fulfilment.scenarios.Scenario;

/**
 * The scenarios the black-box runner plays against a running endpoint: the in-JVM kit's {@link
 * Scenario}s that can be judged from outside, under the kit's ids, and {@code s05b}, the crash
 * after purchase played as a dropped connection. Each says what it cannot judge from outside;
 * {@link #NOT_PORTED} says why the others are not played.
 */
enum HttpScenario {
  S01(
      Scenario.S01_CONCURRENT_DELIVERIES.id(),
      "two concurrent deliveries of one event buy one item; the one that finds the order in flight"
          + " is asked to retry",
      "how many claims the store granted",
      HttpScenarioSteps::concurrentDeliveries),
  S02(
      Scenario.S02_LEASE_OVERRUN.id(),
      "a call that outlives the lease and is then refused cannot reopen the order another delivery"
          + " bought: a final redelivery buys nothing",
      "the order's record after the stale failure (seen from outside only when a later delivery"
          + " buys again)",
      HttpScenarioSteps::leaseOverrun),
  S03(
      Scenario.S03_STALE_COMPLETION.id(),
      "a call that outlives the lease and then succeeds leaves one purchase (the provider honours"
          + " the key) and the order fulfilled",
      "the orphan kept in the store and reported once",
      HttpScenarioSteps::staleCompletion),
  S04(
      Scenario.S04_CRASH_BEFORE_PURCHASE.id(),
      "the endpoint killed while its provider call hangs, before anything is bought: Stripe's"
          + " retries buy once",
      "",
      HttpScenarioSteps::crashBeforePurchase),
  S05(
      Scenario.S05_CRASH_AFTER_PURCHASE.id(),
      "the endpoint killed after the provider bought, before it read the answer: Stripe's retries"
          + " get the same item, one purchase",
      "",
      HttpScenarioSteps::crashAfterPurchase),
  S05B(
      "s05b_droppedAnswerAfterPurchaseBuysOnce",
      "the provider buys and drops the connection: the delivery is asked to retry, and the retries"
          + " get the same item, one purchase",
      "",
      HttpScenarioSteps::droppedAnswerAfterPurchase),
  S06(
      Scenario.S06_UNPAID_THEN_PAID.id(),
      "an unpaid completion buys nothing; async_payment_succeeded then buys once",
      "that the unpaid completion claimed nothing",
      HttpScenarioSteps::unpaidThenPaid),
  S07(
      Scenario.S07_ASYNC_PAYMENT_FAILED.id(),
      "async_payment_failed is answered 2xx and buys nothing",
      "that nothing was claimed",
      HttpScenarioSteps::asyncPaymentFailed),
  S08(
      Scenario.S08_DUPLICATE_AFTER_SUCCESS.id(),
      "the same event delivered again after success is answered 2xx and buys nothing",
      "how many claims the store granted",
      HttpScenarioSteps::duplicateAfterSuccess),
  S10(
      Scenario.S10_PROVIDER_FAILURE_THEN_RETRY.id(),
      "a provider refusal is answered for a retry, and Stripe's retry buys once",
      "the order's last error kept in the store",
      HttpScenarioSteps::providerFailureThenRetry),
  S12(
      Scenario.S12_REDELIVERY_NEW_EVENT_ID.id(),
      "the session under a new event id is answered 2xx and buys nothing more",
      "how many claims the store granted",
      HttpScenarioSteps::redeliveryNewEventId),
  S13(
      Scenario.S13_PAYMENT_EVENTS_IN_ANY_ORDER.id(),
      "async_payment_succeeded is fulfilled whether the unpaid completion came first, comes later"
          + " or never comes: one purchase after payment, none before",
      "which instance saw which event (with one --endpoint, one instance plays both)",
      HttpScenarioSteps::paymentEventsInAnyOrder),
  S14(
      Scenario.S14_FREE_ORDER.id(),
      "a free order (no_payment_required) is fulfilled like a paid one",
      "",
      HttpScenarioSteps::freeOrder),
  S15(
      Scenario.S15_UNKNOWN_PROVIDER_OUTCOME.id(),
      "the provider buys and answers 503, twice: each delivery is asked to retry, and the order"
          + " ends bought once (the same key every attempt)",
      "the key seen in the store's record",
      HttpScenarioSteps::unknownProviderOutcome),
  S19(
      Scenario.S19_TWO_ORDERS_ONE_CART.id(),
      "two orders of the same cart by the same customer are bought once each",
      "",
      HttpScenarioSteps::twoOrdersOfOneCart),
  S22(
      Scenario.S22_BOUGHT_WHAT_WAS_ORDERED.id(),
      "the provider is asked for the session's product and quantity (three of one product; two of"
          + " another, refused once, then on Stripe's retry)",
      "the amount the provider was asked for (its request has none)",
      HttpScenarioSteps::boughtWhatWasOrdered),
  S23(
      "s23_unauthenticatedEventsBuyNothing",
      "a paid event that is unsigned, signed with another secret, signed an hour ago or changed"
          + " after signing is refused (non-2xx) and buys nothing; Stripe's own event for the"
          + " order afterwards buys once",
      "",
      HttpScenarioSteps::unauthenticatedEvents),
  S24(
      Scenario.S24_OTHER_CART_UNDER_ONE_SESSION.id(),
      "a paid event whose cart (product, quantity, amount) differs from the order stored under its"
          + " session id is answered non-2xx and buys nothing, while the order is failed, held by"
          + " a hanging call or fulfilled; the order's own events still buy it once",
      "that the store kept the order unchanged and listed the conflict for its operator",
      HttpScenarioSteps::otherCartUnderOneSession);

  /** The kit's scenarios the runner does not play, and why. */
  static final Map<String, String> NOT_PORTED = notPorted();

  private final String id;
  private final String rule;
  private final String notJudged;
  private final Consumer<HttpRun> body;

  HttpScenario(String id, String rule, String notJudged, Consumer<HttpRun> body) {
    this.id = id;
    this.rule = rule;
    this.notJudged = notJudged;
    this.body = body;
  }

  /** The stable id (the in-JVM kit's, where it has one). */
  String id() {
    return id;
  }

  /** The id's first part: {@code s02}. */
  String shortId() {
    return id.substring(0, id.indexOf('_'));
  }

  /** The rule, as it is judged from outside. */
  String rule() {
    return rule;
  }

  /** Whether it needs the runner to crash the endpoint. */
  boolean needsCrash() {
    return this == S04 || this == S05;
  }

  /** What the in-JVM kit checks that this cannot see from outside, or an empty string. */
  String notJudged() {
    return notJudged;
  }

  /** What to look at in the endpoint when this scenario fails. */
  String ifThisFails() {
    return switch (this) {
      case S01 ->
          "no second attempt may call the provider while the first holds the order: claim it with"
              + " a lease, and answer non-2xx (409) while another attempt holds it";
      case S02 ->
          "settle with the claim's fencing token: a failure written without it after the lease"
              + " lapsed overwrites the order another attempt provisioned and reopens it (the"
              + " incident)";
      case S03 ->
          "one Idempotency-Key per order, the same on every attempt, and settle with the fencing"
              + " token";
      case S04 -> "a claim left by a dead process must lapse at its lease, and the retry buy once";
      case S05, S05B, S15 ->
          "send one Idempotency-Key per order, the same on every attempt (not one per attempt,"
              + " event or process), and answer non-2xx when the provider's outcome is unknown";
      case S06, S13 ->
          "fulfil checkout.session.async_payment_succeeded, and of the completions only paid and"
              + " no_payment_required ones";
      case S07 -> "async_payment_failed and unpaid completions buy nothing and are answered 2xx";
      case S08, S12 ->
          "an order already fulfilled is answered 2xx without buying (dedupe by the session, not"
              + " the event id)";
      case S10 ->
          "a provider refusal is answered non-2xx and leaves the order claimable by Stripe's retry";
      case S14 -> "no_payment_required is fulfilled like paid";
      case S19 -> "the key and the claim name the order (the session), not the cart or customer";
      case S22 ->
          "ask the provider for the session's metadata.product_id and metadata.quantity, not a"
              + " default product or one item";
      case S23 ->
          "verify Stripe-Signature (HMAC-SHA256 of \"<t>.<raw body>\" with the endpoint's secret,"
              + " t within 5 minutes) before acting on an event, and answer 400 when it fails";
      case S24 ->
          "keep the order's product, quantity, amount and currency with its claim, and answer a"
              + " delivery whose cart differs non-2xx without buying (fencekit answers 422 naming"
              + " the fields): another order under one session id is for an operator to sort out,"
              + " not a second purchase or a duplicate";
    };
  }

  /** Plays it, throwing {@link Breach} on the first breach. */
  void play(HttpRun run) {
    body.accept(run);
    run.finish();
  }

  /** The scenario named by {@code name}: its whole id or its first part ({@code s02}). */
  static HttpScenario byName(String name) {
    return Stream.of(values())
        .filter(scenario -> scenario.id.equals(name) || scenario.shortId().equals(name))
        .findFirst()
        .orElse(null);
  }

  private static Map<String, String> notPorted() {
    Map<String, String> reasons = new LinkedHashMap<>();
    reasons.put(Scenario.S09_STORE_DOWN_DURING_COMPLETE.id(), "it faults the store");
    reasons.put(
        Scenario.S11_SLOW_CALL_HEARTBEATS.id(),
        "heartbeats show in the store only (a correct endpoint may or may not heartbeat)");
    reasons.put(
        Scenario.S16_RETRY_IN_SAME_PROCESS.id(),
        "which claim's token settles shows in the store only (from outside it is s10)");
    reasons.put(Scenario.S17_HEARTBEAT_KEEPS_FULL_LEASE.id(), "heartbeats show in the store only");
    reasons.put(Scenario.S18_SUPERSEDED_HEARTBEAT.id(), "heartbeats show in the store only");
    reasons.put(Scenario.S20_CUT_OFF_BEFORE_LEASE_LAPSES.id(), "it cuts an instance off its store");
    reasons.put(
        Scenario.S21_PROVIDER_TIMEOUT.id(),
        "it needs the endpoint's provider timeout and heartbeats");
    return Collections.unmodifiableMap(reasons);
  }
}
