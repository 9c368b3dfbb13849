package org.fencekit.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.fencekit.fulfilment.CheckoutEvent;
import org.fencekit.fulfilment.PaymentStatus;
import org.fencekit.fulfilment.scenarios.ScenarioRun;
import org.fencekit.history.ManualClock;
import org.fencekit.store.Item;
import org.fencekit.store.OrderSnapshot;
import org.fencekit.store.memory.MemoryOrderStore;
import org.junit.jupiter.api.Test;

/**
 * Slow clients and load, in real time over real sockets (network time, not leases; every loop
 * bounded in count and time): a client dripping its body holds a connection, never a delivery slot,
 * and is cut off at the body deadline; {@code /health} and {@code /metrics} answer at once while
 * every slot is busy; a delivery that waits too long for a slot gets a JSON 503 with {@code
 * Retry-After}, counted in the metrics.
 */
class SlowClientsAndLoadTest {

  private static final int SLOW_CLIENTS = 40;
  private static final int DELIVERIES = 20;

  private final ManualClock clock = new ManualClock(ScenarioRun.START);

  private static OrderSnapshot order(int i) {
    return new OrderSnapshot("cs_test_load_" + i, "esim-eu-5gb", 1, null, 1500, "eur");
  }

  @Test
  void fortySlowClientsHoldNoDeliverySlotAndAreCutOffAtTheBodyDeadline() throws Exception {
    Duration bodyTimeout = Duration.ofSeconds(2);
    List<Socket> slow = new ArrayList<>();
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try (MemoryOrderStore store = new MemoryOrderStore(clock);
        WebhookServer server =
            WebhookServer.builder(store, purchase -> new Item("prov-" + purchase.sessionId(), null))
                .host("127.0.0.1")
                .port(0)
                .clock(clock)
                .secret(StripeDeliveries.SECRET)
                .bodyTimeout(bodyTimeout)
                .build()
                .start()) {
      StripeDeliveries stripe = new StripeDeliveries(server.port(), clock);
      long opened = System.nanoTime();
      for (int i = 0; i < SLOW_CLIENTS; i++) {
        Socket socket = new Socket(InetAddress.getLoopbackAddress(), server.port());
        socket.setSoTimeout(10_000);
        slow.add(socket);
        socket
            .getOutputStream()
            .write(
                ("POST /webhook HTTP/1.1\r\nHost: x\r\nStripe-Signature: t=1,v1=00\r\n"
                        + "Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{")
                    .getBytes(StandardCharsets.US_ASCII));
      }
      CountDownLatch stopDripping = new CountDownLatch(1);
      Future<?> dripping =
          pool.submit(
              () -> {
                // one byte per client every 100 ms, well inside the idle timeout, until told
                for (int round = 0; round < 100 && stopDripping.getCount() > 0; round++) {
                  for (Socket socket : slow) {
                    try {
                      OutputStream out = socket.getOutputStream();
                      out.write(' ');
                      out.flush();
                    } catch (IOException cutOff) {
                      // the server closed it: what it should do at the deadline
                    }
                  }
                  stopDripping.await(100, TimeUnit.MILLISECONDS);
                }
                return null;
              });
      List<Future<HttpResponse<String>>> answers = new ArrayList<>();
      for (int i = 0; i < DELIVERIES; i++) {
        CheckoutEvent event = CheckoutEvent.completed("evt_" + i, PaymentStatus.PAID, order(i));
        answers.add(pool.submit(() -> stripe.deliver(event)));
      }
      int fulfilled = 0;
      for (Future<HttpResponse<String>> answer : answers) {
        HttpResponse<String> response = answer.get(10, TimeUnit.SECONDS);
        assertEquals(200, response.statusCode(), response.body());
        fulfilled++;
      }
      HttpResponse<String> health = stripe.send(stripe.request("/health").GET().build());
      long during = Duration.ofNanos(System.nanoTime() - opened).toMillis();
      assertTrue(
          during < bodyTimeout.toMillis(),
          "the deliveries took " + during + " ms, past the slow clients' deadline");
      assertEquals(200, health.statusCode(), health.body());
      System.out.println(
          "SlowClientsAndLoadTest: "
              + fulfilled
              + " of "
              + DELIVERIES
              + " deliveries answered 200 (and /health 200) in "
              + during
              + " ms while "
              + SLOW_CLIENTS
              + " slow clients were connected");
      // each slow client: a JSON 408 by the deadline, then its connection closed
      for (Socket socket : slow) {
        RawHttp.Answer answer = RawHttp.parse(socket.getInputStream().readAllBytes());
        assertEquals(408, answer.status(), answer.toString());
        assertEquals("body_timeout", answer.kind(), answer.toString());
      }
      long cut = Duration.ofNanos(System.nanoTime() - opened).toMillis();
      assertTrue(cut < bodyTimeout.toMillis() + 3_000, "slow clients cut off after " + cut + " ms");
      stopDripping.countDown();
      dripping.get(10, TimeUnit.SECONDS);
    } finally {
      for (Socket socket : slow) {
        socket.close();
      }
      pool.shutdownNow();
      pool.awaitTermination(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void healthAndMetricsAnswerAtOnceWhileEverySlotIsBusyAndOverloadIsAJson503() throws Exception {
    int slots = 4;
    int queued = 6;
    CountDownLatch release = new CountDownLatch(1);
    AtomicInteger buying = new AtomicInteger();
    ExecutorService pool = Executors.newFixedThreadPool(slots + queued);
    try (MemoryOrderStore store = new MemoryOrderStore(clock);
        WebhookServer server =
            WebhookServer.builder(
                    store,
                    purchase -> {
                      buying.incrementAndGet();
                      if (!release.await(30, TimeUnit.SECONDS)) {
                        throw new IllegalStateException("never released");
                      }
                      return new Item("prov-" + purchase.sessionId(), null);
                    })
                .host("127.0.0.1")
                .port(0)
                .clock(clock)
                .secret(StripeDeliveries.SECRET)
                .threads(8)
                .maxConcurrentRequests(slots)
                .queueTime(Duration.ofSeconds(1))
                .build()
                .start()) {
      StripeDeliveries stripe = new StripeDeliveries(server.port(), clock);
      List<Future<HttpResponse<String>>> busy = new ArrayList<>();
      for (int i = 0; i < slots; i++) {
        CheckoutEvent event = CheckoutEvent.completed("evt_" + i, PaymentStatus.PAID, order(i));
        busy.add(pool.submit(() -> stripe.deliver(event)));
      }
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (buying.get() < slots && System.nanoTime() < deadline) {
        Thread.sleep(10); // waiting for HTTP deliveries to reach the provider, not for a lease
      }
      assertEquals(slots, buying.get(), "every slot is busy buying");
      List<Future<HttpResponse<String>>> waiting = new ArrayList<>();
      for (int i = slots; i < slots + queued; i++) {
        CheckoutEvent event = CheckoutEvent.completed("evt_" + i, PaymentStatus.PAID, order(i));
        waiting.add(pool.submit(() -> stripe.deliver(event)));
      }
      long slowest = 0;
      for (int i = 0; i < 20; i++) {
        for (String path : List.of("/health", "/metrics")) {
          long start = System.nanoTime();
          HttpResponse<String> response = stripe.send(stripe.request(path).GET().build());
          long took = Duration.ofNanos(System.nanoTime() - start).toMillis();
          slowest = Math.max(slowest, took);
          assertEquals(200, response.statusCode(), path + ": " + response.body());
          assertTrue(took < 1_000, path + " took " + took + " ms while every slot was busy");
        }
      }
      System.out.println(
          "SlowClientsAndLoadTest: 20 /health and 20 /metrics answered 200 while "
              + slots
              + " of "
              + slots
              + " slots were busy and "
              + queued
              + " deliveries queued; slowest "
              + slowest
              + " ms");
      for (Future<HttpResponse<String>> answer : waiting) {
        HttpResponse<String> response = answer.get(10, TimeUnit.SECONDS);
        assertEquals(503, response.statusCode(), response.body());
        assertTrue(response.body().startsWith("{\"error\":\"overloaded\""), response.body());
        assertEquals("30", response.headers().firstValue("Retry-After").orElse(""));
      }
      release.countDown();
      for (Future<HttpResponse<String>> answer : busy) {
        assertEquals(200, answer.get(10, TimeUnit.SECONDS).statusCode());
      }
      String metrics = stripe.send(stripe.request("/metrics").GET().build()).body();
      assertTrue(
          metrics.contains(
              "fencekit_webhook_refusals_total{error=\"overloaded\"} " + queued + ".0"),
          metrics);
      assertTrue(
          metrics.contains("fencekit_webhook_answers_total{status=\"503\"} " + queued + ".0"),
          metrics);
    } finally {
      release.countDown();
      pool.shutdownNow();
      pool.awaitTermination(10, TimeUnit.SECONDS);
    }
  }
}
