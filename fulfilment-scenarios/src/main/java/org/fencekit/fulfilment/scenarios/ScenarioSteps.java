package org.fencekit.fulfilment.scenarios;

import static org.fencekit.fulfilment.scenarios.ScenarioRun.HEARTBEAT;
import static org.fencekit.fulfilment.scenarios.ScenarioRun.LEASE;
import static org.fencekit.fulfilment.scenarios.ScenarioRun.PROVIDER_TIMEOUT;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.fencekit.fulfilment.CheckoutEvent;
import org.fencekit.store.OrderStatus;

/**
 * The steps and checks of each {@link Scenario}, one method a scenario, played on a {@link
 * ScenarioRun}: the run's steps drive the world, {@code run.expect()} checks what the handler did.
 */
final class ScenarioSteps {

  private ScenarioSteps() {}

  /** The steps of a scenario played on instances A and B. */
  @FunctionalInterface
  interface TwoInstances {
    void play(ScenarioRun run, Instance a, Instance b);
  }

  private static final int[] NOT_2XX = {500, 502, 503, 504};
  private static final int[] MISMATCH = {422};
  private static final int[] ANY_ANSWER = {200, 409, 500, 502, 503, 504};

  static void concurrentDeliveries(ScenarioRun run, Instance a, Instance b) {
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
    deliverAndExpect(run, b, run.paid("order"), 200);
    a.thaw();
    return slow;
  }

  static void leaseOverrun(ScenarioRun run, Instance a, Instance b) {
    Delivery slow = overrun(run, a, b);
    run.provider().releaseWithFailure(1, "provider outage", true);
    run.expect().answer(slow, ANY_ANSWER);
    run.expect().status("order", OrderStatus.PROVISIONED);
    run.expect().itemIsPurchase("order", 1);
    deliverAndExpect(run, b, run.paid("order"), 200);
    run.expect().purchases("order", 1);
    run.expect().claimsGranted("order", 2);
  }

  static void staleCompletion(ScenarioRun run, Instance a, Instance b) {
    run.provider().honourIdempotencyKeys(false); // so A's late success is a second purchase
    Delivery slow = overrun(run, a, b);
    run.provider().release(1);
    run.expect().answer(slow, ANY_ANSWER);
    run.expect().status("order", OrderStatus.PROVISIONED);
    run.expect().itemIsPurchase("order", 1);
    run.expect().purchases("order", 2);
    run.expect().orphans("order", 2);
    run.expect().reported("order", 2);
    deliverAndExpect(run, b, run.paid("order"), 200);
    run.expect().purchases("order", 2);
    run.expect().reported("order", 2);
  }

  static void crashBeforePurchase(ScenarioRun run, Instance a, Instance b) {
    run.provider().next(Behaviour.crashBeforeBuying());
    a.deliver(run.paid("order"));
    run.provider().awaitCall(1);
    run.advance(Duration.ofMinutes(1));
    deliverAndExpect(run, b, run.paid("order"), 409);
    run.advance(LEASE);
    deliverAndExpect(run, b, run.paid("order"), 200);
    boughtOnce(run, "order");
  }

  static void crashAfterPurchase(ScenarioRun run, Instance a, Instance b) {
    run.provider().next(Behaviour.crashAfterBuying());
    a.deliver(run.paid("order"));
    run.provider().awaitCall(1);
    run.advance(LEASE);
    deliverAndExpect(run, b, run.paid("order"), 200);
    boughtOnce(run, "order");
  }

  static void unpaidThenPaid(ScenarioRun run) {
    Instance a = run.instance("A");
    deliverAndExpect(run, a, run.unpaid("order"), 200);
    run.expect().purchases("order", 0);
    run.expect().notClaimed("order");
    deliverAndExpect(run, a, run.asyncSucceeded("order"), 200);
    run.expect().purchases("order", 1);
    run.expect().status("order", OrderStatus.PROVISIONED);
  }

  static void asyncPaymentFailed(ScenarioRun run) {
    Instance a = run.instance("A");
    deliverAndExpect(run, a, run.unpaid("order"), 200);
    deliverAndExpect(run, a, run.asyncFailed("order"), 200);
    run.expect().purchases("order", 0);
    run.expect().notClaimed("order");
  }

  static void duplicateAfterSuccess(ScenarioRun run, Instance a, Instance b) {
    CheckoutEvent paid = run.paid("order");
    deliverAndExpect(run, a, paid, 200);
    deliverAndExpect(run, b, paid, 200);
    deliverAndExpect(run, a, paid, 200);
    run.expect().purchases("order", 1);
    run.expect().claimsGranted("order", 1);
  }

  static void storeDownDuringComplete(ScenarioRun run, Instance a, Instance b) {
    for (boolean lands : new boolean[] {true, false}) {
      String order = lands ? "landed" : "lost";
      a.storeFailsFrom("complete", lands);
      deliverAndExpect(run, a, run.paid(order), NOT_2XX);
      a.reconnect();
      run.advance(LEASE);
      deliverAndExpect(run, b, run.paid(order), 200);
      boughtOnce(run, order);
      run.expect().noFailAfterUnknownComplete();
      run.expect().neverFailed(order);
    }
  }

  static void providerFailureThenRetry(ScenarioRun run, Instance a, Instance b) {
    run.provider().next(Behaviour.refuse("out of stock at the provider"));
    CheckoutEvent paid = run.paid("order");
    deliverAndExpect(run, a, paid, NOT_2XX);
    run.expect().status("order", OrderStatus.FAILED);
    run.expect().lastErrorContains("order", "out of stock at the provider");
    deliverAndExpect(run, b, paid, 200); // Stripe's retry: the same event
    run.expect().purchases("order", 1);
    run.expect().status("order", OrderStatus.PROVISIONED);
    run.expect().lastErrorContains("order", "out of stock at the provider");
  }

  static void slowCallWithHeartbeats(ScenarioRun run, Instance a, Instance b) {
    run.provider().next(Behaviour.hang());
    Delivery slow = a.deliver(run.paid("order"));
    run.provider().awaitCall(1);
    for (int beat = 1; beat <= 14; beat++) { // 7 minutes: three and a half leases
      run.advance(HEARTBEAT);
      if (beat % 4 == 0) {
        deliverAndExpect(run, b, run.paid("order"), 409);
      }
      if (beat % 5 == 0) {
        deliverAndExpect(run, a, run.paid("order"), 409);
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

  static void redeliveryNewEventId(ScenarioRun run, Instance a, Instance b) {
    deliverAndExpect(run, a, run.paid("order"), 200);
    deliverAndExpect(run, b, run.paid("order"), 200);
    run.expect().purchases("order", 1);
    run.expect().claimsGranted("order", 1);
  }

  static void paymentEventsInAnyOrder(ScenarioRun run, Instance a, Instance b) {
    // async_payment_succeeded first, at B; the session's unpaid completed comes later, at A
    deliverAndExpect(run, b, run.asyncSucceeded("early"), 200);
    run.expect().purchases("early", 1);
    run.expect().status("early", OrderStatus.PROVISIONED);
    deliverAndExpect(run, a, run.unpaid("early"), 200);
    boughtOnce(run, "early");
    // async_payment_succeeded alone: its completed never arrives
    deliverAndExpect(run, a, run.asyncSucceeded("alone"), 200);
    run.expect().purchases("alone", 1);
    run.expect().status("alone", OrderStatus.PROVISIONED);
    // unpaid at A, paid at B
    deliverAndExpect(run, a, run.unpaid("split"), 200);
    run.expect().purchases("split", 0);
    run.expect().notClaimed("split");
    deliverAndExpect(run, b, run.asyncSucceeded("split"), 200);
    run.expect().purchases("split", 1);
    run.expect().status("split", OrderStatus.PROVISIONED);
  }

  static void freeOrder(ScenarioRun run) {
    Instance a = run.instance("A");
    deliverAndExpect(run, a, run.free("order"), 200);
    boughtOnce(run, "order");
    run.expect().claimsGranted("order", 1);
  }

  static void unknownProviderOutcome(ScenarioRun run, Instance a, Instance b) {
    run.provider().next(Behaviour.buyThenTimeOut(), Behaviour.buyThenTimeOut());
    CheckoutEvent paid = run.paid("order");
    deliverAndExpect(run, a, paid, NOT_2XX);
    run.expect().purchases("order", 1);
    run.advance(LEASE);
    deliverAndExpect(run, a, paid, NOT_2XX); // Stripe's retry of the same event, same instance
    run.advance(LEASE);
    deliverAndExpect(run, b, run.paid("order"), 200); // a new event, another instance
    boughtOnce(run, "order");
  }

  static void retryInSameProcess(ScenarioRun run) {
    Instance a = run.instance("A");
    run.provider().next(Behaviour.refuse("out of stock at the provider"));
    CheckoutEvent paid = run.paid("order");
    deliverAndExpect(run, a, paid, NOT_2XX);
    run.advance(LEASE);
    deliverAndExpect(run, a, paid, 200);
    run.expect().orphans("order");
    run.expect().reported("order");
    run.expect().status("order", OrderStatus.PROVISIONED);
    run.expect().purchases("order", 1);
    run.expect().itemIsPurchase("order", 1);
    run.expect().claimsGranted("order", 2);
  }

  // Each round: a heartbeat's worth of time, then A pauses and B comes just before A's lapse.
  static void heartbeatKeepsFullLease(ScenarioRun run, Instance a, Instance b) {
    CheckoutEvent paid = run.paid("order");
    Delivery slow = hangingCall(run, a, paid);
    for (int round = 1; round <= 3; round++) {
      run.advance(HEARTBEAT);
      Instant lapse = run.leaseObtained(a, "order");
      a.freeze();
      run.advanceTo(lapse.minusMillis(1));
      deliverAndExpect(run, b, paid, 409);
      run.expect().claimsGranted("order", 1);
      a.thaw();
    }
    run.provider().release(1);
    run.expect().answer(slow, 200);
    run.expect().purchases("order", 1);
    run.expect().status("order", OrderStatus.PROVISIONED);
    run.expect().claimsGranted("order", 1);
  }

  static void supersededHeartbeat(ScenarioRun run, Instance a, Instance b) {
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

  static void twoOrdersOfOneCart(ScenarioRun run, Instance a, Instance b) {
    deliverAndExpect(run, a, run.paid("first"), 200);
    deliverAndExpect(run, b, run.paid("second"), 200);
    run.expect().purchases("first", 1);
    run.expect().purchases("second", 1);
    run.expect().itemIsPurchase("first", 1);
    run.expect().itemIsPurchase("second", 1);
  }

  static void cutOffBeforeLeaseLapses(ScenarioRun run, Instance a, Instance b) {
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
    deliverAndExpect(run, b, paid, 200);
    a.reconnect();
    run.provider().release(1);
    boughtOnce(run, "order");
    run.expect().claimsGranted("order", 2);
  }

  static void providerTimeout(ScenarioRun run, Instance a, Instance b) {
    CheckoutEvent paid = run.paid("order");
    Delivery slow = hangingCall(run, a, paid);
    run.advance(PROVIDER_TIMEOUT);
    run.expect().answer(slow, NOT_2XX);
    run.expect().callCutOff(1);
    run.advance(LEASE);
    deliverAndExpect(run, b, paid, 200);
    run.provider().release(1);
    boughtOnce(run, "order");
    run.expect().claimsGranted("order", 2);
  }

  static void boughtWhatWasOrdered(ScenarioRun run, Instance a, Instance b) {
    run.order("bulk", "esim-world-10gb", 3, 8997);
    deliverAndExpect(run, a, run.paid("bulk"), 200);
    boughtOnce(run, "bulk");
    run.order("pair", "esim-us-1gb", 2, 1200);
    run.provider().next(Behaviour.refuse("out of stock at the provider"));
    CheckoutEvent paid = run.paid("pair");
    deliverAndExpect(run, a, paid, NOT_2XX);
    run.expect().purchases("pair", 0);
    deliverAndExpect(run, b, paid, 200); // Stripe's retry, at another instance
    boughtOnce(run, "pair");
  }

  // The other cart comes while the order is failed, then held by a live attempt, then provisioned.
  static void otherCartUnderOneSession(ScenarioRun run, Instance a, Instance b) {
    run.provider().next(Behaviour.refuse("out of stock at the provider"));
    CheckoutEvent failing = run.paid("failed");
    deliverAndExpect(run, a, failing, NOT_2XX);
    otherCartBuysNothing(run, b, "failed");
    run.expect().status("failed", OrderStatus.FAILED);
    deliverAndExpect(run, a, failing, 200); // Stripe's retry of the order's own event
    boughtOnce(run, "failed");

    int call = run.provider().calls().size() + 1;
    Delivery slow = hangingCall(run, a, run.paid("held"));
    otherCartBuysNothing(run, b, "held");
    run.expect().claimsGranted("held", 1);
    run.provider().release(call);
    run.expect().answer(slow, 200);
    boughtOnce(run, "held");

    otherCartBuysNothing(run, a, "held");
    boughtOnce(run, "held");
    run.expect().claimsGranted("held", 1);
  }

  /**
   * Delivers another cart under the order's session id to {@code instance}: nothing bought, then
   * the answer asks for a retry.
   */
  private static void otherCartBuysNothing(ScenarioRun run, Instance instance, String order) {
    int bought = run.provider().purchases(run.sessionId(order));
    Delivery other = instance.deliverAndAwait(run.otherCart(order, "esim-world-10gb", 3, 8997));
    run.expect().purchases(order, bought);
    run.expect().answer(other, MISMATCH);
  }

  /** The order ends provisioned with its first purchase, the only one. */
  private static void boughtOnce(ScenarioRun run, String order) {
    run.expect().purchases(order, 1);
    run.expect().status(order, OrderStatus.PROVISIONED);
    run.expect().itemIsPurchase(order, 1);
  }

  /** Delivers {@code event} to {@code instance}, waits for its answer and checks it. */
  private static void deliverAndExpect(
      ScenarioRun run, Instance instance, CheckoutEvent event, int... statuses) {
    run.expect().answer(instance.deliverAndAwait(event), statuses);
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
