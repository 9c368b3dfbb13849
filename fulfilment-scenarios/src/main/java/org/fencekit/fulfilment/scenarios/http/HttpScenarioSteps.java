package org.fencekit.fulfilment.scenarios.http;

import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;

/**
 * The steps of each {@link HttpScenario}, one method a scenario, played on an {@link HttpRun}; the
 * run's own checks (at most one purchase, none unpaid, exactly one by a 2xx) hold throughout, and
 * {@link HttpRun#finish()} plays Stripe's retries and the final checks after each.
 */
final class HttpScenarioSteps {

  private HttpScenarioSteps() {}

  static void concurrentDeliveries(HttpRun run) {
    run.steer("order", false, Steer.HANG); // a second call would be a second purchase
    StripeEvent paid = run.paid("order");
    CompletableFuture<HttpRun.Answer> first = run.deliver(paid);
    CompletableFuture<HttpRun.Answer> second = run.deliver(paid, 2); // the other instance
    run.awaitCall("order", 1);
    long deadline = System.nanoTime() + run.leases(0.5).toNanos();
    while (!first.isDone() && !second.isDone() && System.nanoTime() < deadline) {
      HttpRun.sleep(Duration.ofMillis(20));
    }
    run.release("order", 1, Steer.SUCCEED);
    run.await(first);
    run.await(second);
    run.expectPurchases("order", 1);
  }

  static void leaseOverrun(HttpRun run) {
    // keys ignored: a delivery that reopens the bought order shows as a second purchase
    run.steer("order", false, Steer.HANG);
    CompletableFuture<HttpRun.Answer> slow = run.deliver(run.paid("order"));
    run.awaitCall("order", 1);
    run.pause(1.5); // the lease lapses (an endpoint that heartbeats keeps it: then d2 is refused)
    run.deliverAndAwait(run.paid("order"), 2);
    run.release("order", 1, Steer.REFUSE);
    run.await(slow);
    run.pause(0.25);
    run.deliverAndAwait(run.paid("order")); // must buy nothing if d2 bought
  }

  static void staleCompletion(HttpRun run) {
    run.steer("order", true, Steer.HANG);
    CompletableFuture<HttpRun.Answer> slow = run.deliver(run.paid("order"));
    run.awaitCall("order", 1);
    run.pause(1.5);
    run.deliverAndAwait(run.paid("order"), 2);
    run.release("order", 1, Steer.SUCCEED);
    run.await(slow);
    run.deliverAndAwait(run.paid("order"));
  }

  static void crashBeforePurchase(HttpRun run) {
    run.steer("order", true, Steer.HANG);
    CompletableFuture<HttpRun.Answer> first = run.deliver(run.paid("order"));
    run.awaitCall("order", 1);
    run.crash();
    run.release("order", 1, Steer.REFUSE); // its caller is dead: nothing bought, nobody hears
    run.await(first);
    run.deliverAndAwait(run.paid("order")); // before the lease lapses: retry or buy once
  }

  static void crashAfterPurchase(HttpRun run) {
    run.steer("order", true, Steer.BUY_THEN_HANG);
    CompletableFuture<HttpRun.Answer> first = run.deliver(run.paid("order"));
    run.awaitCall("order", 1);
    run.crash();
    run.release("order", 1, Steer.DROP_AFTER_BUYING);
    run.await(first);
    run.expectPurchases("order", 1);
  }

  static void droppedAnswerAfterPurchase(HttpRun run) {
    run.steer("order", true, Steer.DROP_AFTER_BUYING);
    HttpRun.Answer first = run.deliverAndAwait(run.paid("order"));
    run.expectRetry(
        first, "its provider call's connection dropped, so it cannot know whether it bought");
    run.expectPurchases("order", 1);
  }

  static void unpaidThenPaid(HttpRun run) {
    HttpRun.Answer unpaid = run.deliverAndAwait(run.unpaid("order"));
    run.expectAccepted(unpaid, "an unpaid completion needs nothing until the payment succeeds");
    run.expectPurchases("order", 0);
    HttpRun.Answer paid = run.deliverAndAwait(run.asyncSucceeded("order"));
    run.expectAccepted(paid, "the payment succeeded and the order can be bought");
  }

  static void asyncPaymentFailed(HttpRun run) {
    HttpRun.Answer unpaid = run.deliverAndAwait(run.unpaid("order"));
    run.expectAccepted(unpaid, "an unpaid completion needs nothing until the payment succeeds");
    HttpRun.Answer failed = run.deliverAndAwait(run.asyncFailed("order"));
    run.expectAccepted(failed, "a failed payment needs nothing");
    run.expectPurchases("order", 0);
  }

  static void duplicateAfterSuccess(HttpRun run) {
    StripeEvent paid = run.paid("order");
    run.expectAccepted(run.deliverAndAwait(paid), "the order could be bought");
    for (int again = 0; again < 2; again++) {
      run.expectAccepted(run.deliverAndAwait(paid), "the order was fulfilled already");
      run.expectPurchases("order", 1);
    }
  }

  static void providerFailureThenRetry(HttpRun run) {
    run.steer("order", true, Steer.REFUSE);
    HttpRun.Answer first = run.deliverAndAwait(run.paid("order"));
    run.expectRetry(first, "the provider refused, so nothing was bought for a paid order");
    run.expectPurchases("order", 0);
  }

  static void redeliveryNewEventId(HttpRun run) {
    run.expectAccepted(run.deliverAndAwait(run.paid("order")), "the order could be bought");
    run.expectAccepted(
        run.deliverAndAwait(run.paid("order")), "the order was fulfilled already (new event id)");
    run.expectPurchases("order", 1);
  }

  static void paymentEventsInAnyOrder(HttpRun run) {
    run.expectAccepted(
        run.deliverAndAwait(run.asyncSucceeded("early")),
        "the payment succeeded (completed later)");
    run.expectAccepted(run.deliverAndAwait(run.unpaid("early")), "the order was fulfilled already");
    run.expectPurchases("early", 1);
    run.expectAccepted(
        run.deliverAndAwait(run.asyncSucceeded("alone")),
        "the payment succeeded (never completed)");
    run.expectAccepted(run.deliverAndAwait(run.unpaid("split")), "unpaid: nothing to do yet");
    run.expectPurchases("split", 0);
    run.expectAccepted(
        run.deliverAndAwait(run.asyncSucceeded("split"), 2), "the payment succeeded afterwards");
  }

  static void freeOrder(HttpRun run) {
    run.expectAccepted(run.deliverAndAwait(run.free("order")), "a free order is fulfilled at once");
  }

  static void unknownProviderOutcome(HttpRun run) {
    run.steer("order", true, Steer.SERVER_ERROR_AFTER_BUYING, Steer.SERVER_ERROR_AFTER_BUYING);
    StripeEvent paid = run.paid("order");
    HttpRun.Answer first = run.deliverAndAwait(paid);
    run.expectRetry(first, "the provider answered 503, so the endpoint cannot know it bought");
    run.pause(1);
    run.deliverAndAwait(paid); // Stripe's retry: 503 again if it calls, or in flight
    run.pause(1);
    run.deliverAndAwait(run.paid("order"), 2); // the session under a new event id, elsewhere
  }

  static void twoOrdersOfOneCart(HttpRun run) {
    run.expectAccepted(run.deliverAndAwait(run.paid("first")), "the first order could be bought");
    run.expectAccepted(run.deliverAndAwait(run.paid("second"), 2), "the second order is another");
    run.expectPurchases("first", 1);
    run.expectPurchases("second", 1);
  }

  static void boughtWhatWasOrdered(HttpRun run) {
    run.order("bulk", new StripeEvent.Goods("esim-world-10gb", 3, 8997));
    run.expectAccepted(run.deliverAndAwait(run.paid("bulk")), "the order could be bought");
    run.expectPurchases("bulk", 1);
    run.order("pair", new StripeEvent.Goods("esim-us-1gb", 2, 1200));
    run.steer("pair", true, Steer.REFUSE);
    run.expectRetry(run.deliverAndAwait(run.paid("pair")), "the provider refused");
    run.expectPurchases("pair", 0); // Stripe's retry (finish) buys it
  }

  // The other cart comes while the order is failed, then held by a hanging call, then fulfilled.
  static void otherCartUnderOneSession(HttpRun run) {
    StripeEvent.Goods other = new StripeEvent.Goods("esim-world-10gb", 3, 8997);
    run.steer("failed", true, Steer.REFUSE);
    run.expectRetry(run.deliverAndAwait(run.paid("failed")), "the provider refused");
    run.deliverAndAwait(run.otherCart("failed", other), 2);
    run.expectPurchases("failed", 0); // Stripe's retry of the order's own event (finish) buys it
    run.steer("held", true, Steer.HANG);
    CompletableFuture<HttpRun.Answer> slow = run.deliver(run.paid("held"));
    run.awaitCall("held", 1);
    run.deliverAndAwait(run.otherCart("held", other), 2);
    run.release("held", 1, Steer.SUCCEED);
    run.await(slow);
    run.expectPurchases("held", 1);
    run.deliverAndAwait(run.otherCart("held", other));
    run.expectPurchases("held", 1);
  }

  static void unauthenticatedEvents(HttpRun run) {
    for (HttpRun.Forgery how : HttpRun.Forgery.values()) {
      run.expectRefused(run.paid(how.name().toLowerCase(Locale.ROOT)), how);
    }
    for (HttpRun.Forgery how : HttpRun.Forgery.values()) {
      String name = how.name().toLowerCase(Locale.ROOT);
      run.expectPurchases(name, 0);
      run.expectAccepted( // Stripe's own event, after the forged one: nothing it did may stick
          run.deliverAndAwait(run.paid(name)), "Stripe's signed event for the order came");
    }
  }
}
