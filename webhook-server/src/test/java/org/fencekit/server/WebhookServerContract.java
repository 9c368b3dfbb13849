package org.fencekit.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.http.HttpResponse;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.fencekit.fulfilment.CheckoutEvent;
import org.fencekit.fulfilment.PaymentStatus;
import org.fencekit.fulfilment.Provider;
import org.fencekit.fulfilment.scenarios.ScenarioRun;
import org.fencekit.history.ManualClock;
import org.fencekit.store.ClaimId;
import org.fencekit.store.Item;
import org.fencekit.store.OrderSnapshot;
import org.fencekit.store.OrderStatus;
import org.fencekit.store.OrderStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The server over HTTP on one backend: concurrent deliveries of one event buy once, a redelivery of
 * a fulfilled session buys nothing. Each backend is a top-level subclass.
 */
abstract class WebhookServerContract {

  private static final int DELIVERIES = 32;

  private final ManualClock clock = new ManualClock(ScenarioRun.START);
  private final AtomicInteger purchases = new AtomicInteger();
  private final CountDownLatch release = new CountDownLatch(1);
  private final CountDownLatch called = new CountDownLatch(1);
  private OrderStore store;
  private WebhookServer server;

  /** The store under the server, on {@code clock}. */
  abstract OrderStore newStore(Clock clock) throws Exception;

  @AfterEach
  void stop() {
    release.countDown();
    if (server != null) {
      server.close();
    }
    if (store != null) {
      store.close();
    }
  }

  private StripeDeliveries start() throws Exception {
    store = newStore(clock);
    Provider slow =
        purchase -> {
          called.countDown();
          if (!release.await(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("the test never released the provider call");
          }
          return new Item("prov-" + purchases.incrementAndGet(), "LPA:1$test");
        };
    server =
        WebhookServer.builder(store, slow)
            .host("127.0.0.1")
            .port(0)
            .clock(clock)
            .secret(StripeDeliveries.SECRET)
            // a slot for each of the 32 deliveries below: with the default 24, eight waited for a
            // slot behind 31 claims of one order, and on a loaded machine (or store) they could
            // wait out the 5 s queue time and be answered 503 overloaded, not 409; all 32 claiming
            // at once is the race this contract is about
            .maxConcurrentRequests(DELIVERIES)
            .build()
            .start();
    return new StripeDeliveries(server.port(), clock);
  }

  private static OrderSnapshot order() {
    return new OrderSnapshot(
        "cs_test_" + ClaimId.newNonce().substring(0, 12), "esim-eu-5gb", 1, null, 1500, "eur");
  }

  @Test
  void thirtyTwoConcurrentDeliveriesOfOneEventBuyOnceAndTheOthersAreToldToRetry() throws Exception {
    StripeDeliveries stripe = start();
    CheckoutEvent event = CheckoutEvent.completed("evt_race", PaymentStatus.PAID, order());
    int deliveries = DELIVERIES;
    ExecutorService pool = Executors.newFixedThreadPool(deliveries);
    try {
      CyclicBarrier together = new CyclicBarrier(deliveries);
      List<Future<HttpResponse<String>>> answers = new ArrayList<>();
      for (int i = 0; i < deliveries; i++) {
        answers.add(
            pool.submit(
                () -> {
                  together.await(10, TimeUnit.SECONDS);
                  return stripe.deliver(event);
                }));
      }
      assertTrue(called.await(30, TimeUnit.SECONDS), "no delivery reached the provider");
      List<Integer> losers = new ArrayList<>();
      Future<HttpResponse<String>> winner = null;
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (losers.size() < deliveries - 1 && System.nanoTime() < deadline) {
        losers.clear();
        winner = null;
        for (Future<HttpResponse<String>> answer : answers) {
          if (answer.isDone()) {
            losers.add(answer.get().statusCode());
          } else {
            winner = answer;
          }
        }
        Thread.sleep(10); // waiting for HTTP answers, not for a lease
      }
      assertEquals(deliveries - 1, losers.size(), "answers while the winner buys: " + losers);
      for (int status : losers) {
        assertEquals(409, status, "every other delivery is told to retry later: " + losers);
      }
      release.countDown();
      HttpResponse<String> won = winner.get(30, TimeUnit.SECONDS);
      assertEquals(200, won.statusCode(), won.body());
      assertEquals(1, purchases.get());
      assertEquals(OrderStatus.PROVISIONED, store.get(event.sessionId()).orElseThrow().status());

      HttpResponse<String> redelivered =
          stripe.deliver(
              CheckoutEvent.completed("evt_again", PaymentStatus.PAID, event.snapshot()));
      assertEquals(200, redelivered.statusCode(), redelivered.body());
      assertTrue(redelivered.body().contains("\"duplicate\""), redelivered.body());
      assertEquals(1, purchases.get(), "a redelivery of a fulfilled session buys nothing");
    } finally {
      release.countDown();
      pool.shutdownNow();
      pool.awaitTermination(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void closingDuringASlowProviderCallLetsThatDeliveryFinishAndTurnsNewOnesAway() throws Exception {
    StripeDeliveries stripe = start();
    CheckoutEvent event = CheckoutEvent.completed("evt_slow", PaymentStatus.PAID, order());
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      Future<HttpResponse<String>> slow = pool.submit(() -> stripe.deliver(event));
      assertTrue(called.await(30, TimeUnit.SECONDS), "the delivery never reached the provider");
      Future<?> closing = pool.submit(server::close);
      HttpResponse<String> turnedAway = null;
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (System.nanoTime() < deadline) {
        HttpResponse<String> health = stripe.send(stripe.request("/health").GET().build());
        if (health.statusCode() == 503) {
          turnedAway =
              stripe.deliver(CheckoutEvent.completed("evt_new", PaymentStatus.PAID, order()));
          break;
        }
        Thread.sleep(10); // waiting for the server to start draining
      }
      assertTrue(turnedAway != null, "the server never started draining");
      assertEquals(503, turnedAway.statusCode(), turnedAway.body());
      assertTrue(turnedAway.body().contains("shutting_down"), turnedAway.body());
      assertEquals(false, closing.isDone(), "close waits for the delivery in flight");
      release.countDown();
      HttpResponse<String> finished = slow.get(30, TimeUnit.SECONDS);
      assertEquals(200, finished.statusCode(), finished.body());
      closing.get(30, TimeUnit.SECONDS);
      assertEquals(OrderStatus.PROVISIONED, store.get(event.sessionId()).orElseThrow().status());
    } finally {
      release.countDown();
      pool.shutdownNow();
      pool.awaitTermination(10, TimeUnit.SECONDS);
    }
  }
}
