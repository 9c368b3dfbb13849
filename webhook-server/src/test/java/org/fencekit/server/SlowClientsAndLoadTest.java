package org.fencekit.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
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
 * bounded in count and time): a client dripping its body holds a connection, never a delivery slot
 * nor a server thread, and is cut off at the body deadline; {@code /health} and {@code /metrics}
 * answer while every slot is busy; a delivery that waits too long for a slot gets a JSON 503 with
 * {@code Retry-After}, counted in the metrics. What is proved rests on what happened first, not on
 * how fast: a CI machine under load may take seconds for what takes milliseconds here.
 */
class SlowClientsAndLoadTest {

  private static final int SLOW_CLIENTS = 40;
  private static final int DELIVERIES = 20;

  private final ManualClock clock = new ManualClock(ScenarioRun.START);

  private static OrderSnapshot order(int i) {
    return new OrderSnapshot("cs_test_load_" + i, "esim-eu-5gb", 1, null, 1500, "eur");
  }

  /** Opens {@code count} connections that each send a delivery's headers and one byte of body. */
  private static List<Socket> slowClients(int port, int count, List<Socket> into)
      throws IOException {
    for (int i = 0; i < count; i++) {
      Socket socket = new Socket(InetAddress.getLoopbackAddress(), port);
      into.add(socket);
      socket.setSoTimeout(30_000);
      socket
          .getOutputStream()
          .write(
              ("POST /webhook HTTP/1.1\r\nHost: x\r\nStripe-Signature: t=1,v1=00\r\n"
                      + "Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{")
                  .getBytes(StandardCharsets.US_ASCII));
    }
    return into;
  }

  /**
   * Sends one byte to each slow client every 100 ms, well inside the idle timeout (so none is cut
   * off as idle), until {@code stop} or for at most {@code rounds} rounds.
   */
  private static Future<?> drip(
      ExecutorService pool, List<Socket> slow, CountDownLatch stop, int rounds) {
    return pool.submit(
        () -> {
          for (int round = 0; round < rounds && stop.getCount() > 0; round++) {
            for (Socket socket : slow) {
              try {
                OutputStream out = socket.getOutputStream();
                out.write(' ');
                out.flush();
              } catch (IOException cutOff) {
                // the server closed it: what it should do at the deadline
              }
            }
            stop.await(100, TimeUnit.MILLISECONDS);
          }
          return null;
        });
  }

  @Test
  void fortySlowClientsHoldNoDeliverySlotNorServerThread() throws Exception {
    // Fewer slots and server threads than slow clients, and a body deadline and a queue time far
    // beyond what the deliveries need even on a loaded machine: if a slow client held a slot, every
    // slot would be held until its deadline and the deliveries would be answered 503 after the
    // queue time; if it held a server thread, no delivery would be read before the slow clients
    // were cut off. So 20 x 200 while no slow client has had an answer proves neither happens,
    // however long the deliveries take.
    int slots = 8;
    List<Socket> slow = new ArrayList<>();
    ExecutorService pool = Executors.newFixedThreadPool(8);
    CountDownLatch stopDripping = new CountDownLatch(1);
    try (MemoryOrderStore store = new MemoryOrderStore(clock);
        WebhookServer server =
            WebhookServer.builder(store, purchase -> new Item("prov-" + purchase.sessionId(), null))
                .host("127.0.0.1")
                .port(0)
                .clock(clock)
                .secret(StripeDeliveries.SECRET)
                .threads(16)
                .maxConcurrentRequests(slots)
                .queueTime(Duration.ofSeconds(20))
                .bodyTimeout(Duration.ofSeconds(120))
                .build()
                .start()) {
      StripeDeliveries stripe = new StripeDeliveries(server.port(), clock);
      slowClients(server.port(), SLOW_CLIENTS, slow);
      Future<?> dripping = drip(pool, slow, stopDripping, 1_800);
      List<Future<HttpResponse<String>>> answers = new ArrayList<>();
      for (int i = 0; i < DELIVERIES; i++) {
        CheckoutEvent event = CheckoutEvent.completed("evt_" + i, PaymentStatus.PAID, order(i));
        answers.add(pool.submit(() -> stripe.deliver(event)));
      }
      int fulfilled = 0;
      for (Future<HttpResponse<String>> answer : answers) {
        HttpResponse<String> response = answer.get(60, TimeUnit.SECONDS);
        assertEquals(200, response.statusCode(), response.body());
        fulfilled++;
      }
      HttpResponse<String> health = stripe.send(stripe.request("/health").GET().build());
      assertEquals(200, health.statusCode(), health.body());
      // the slow clients are still sending: none has been answered or cut off yet
      for (Socket socket : slow) {
        assertEquals(
            0,
            socket.getInputStream().available(),
            "a slow client was answered before the deliveries were; it held what they needed");
      }
      stopDripping.countDown();
      dripping.get(30, TimeUnit.SECONDS);
      System.out.println(
          "SlowClientsAndLoadTest: "
              + fulfilled
              + " of "
              + DELIVERIES
              + " deliveries answered 200 (and /health 200) over "
              + slots
              + " slots while "
              + SLOW_CLIENTS
              + " slow clients were connected and still sending");
    } finally {
      stopDripping.countDown();
      for (Socket socket : slow) {
        socket.close();
      }
      pool.shutdownNow();
      pool.awaitTermination(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void slowClientsAreCutOffWithA408AtTheBodyDeadline() throws Exception {
    Duration bodyTimeout = Duration.ofSeconds(2);
    List<Socket> slow = new ArrayList<>();
    ExecutorService pool = Executors.newFixedThreadPool(1);
    CountDownLatch stopDripping = new CountDownLatch(1);
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
      long opened = System.nanoTime();
      slowClients(server.port(), SLOW_CLIENTS, slow);
      // dripping for up to 60 s, past the bound below: only the body deadline can cut them off
      Future<?> dripping = drip(pool, slow, stopDripping, 600);
      // each slow client: a JSON 408 for the deadline (not for idling), then its connection closed
      long first = -1;
      for (Socket socket : slow) {
        RawHttp.Answer answer = RawHttp.parse(socket.getInputStream().readAllBytes());
        if (first < 0) {
          first = Duration.ofNanos(System.nanoTime() - opened).toMillis();
        }
        assertEquals(408, answer.status(), answer.toString());
        assertEquals("body_timeout", answer.kind(), answer.toString());
        assertTrue(
            answer.body().contains("within " + bodyTimeout.toMillis() + " ms"), answer.toString());
      }
      long cut = Duration.ofNanos(System.nanoTime() - opened).toMillis();
      // not before the deadline (each one's headers were sent after `opened`); the upper bound is
      // generous, for a loaded machine: without a deadline they would drip on for 60 s
      assertTrue(
          first >= bodyTimeout.toMillis(), "a slow client was cut off after " + first + " ms");
      assertTrue(cut < 30_000, "slow clients cut off after " + cut + " ms");
      System.out.println(
          "SlowClientsAndLoadTest: "
              + SLOW_CLIENTS
              + " slow clients answered 408 at the "
              + bodyTimeout.toMillis()
              + " ms body deadline, the first after "
              + first
              + " ms, the last after "
              + cut
              + " ms");
      stopDripping.countDown();
      dripping.get(30, TimeUnit.SECONDS);
    } finally {
      stopDripping.countDown();
      for (Socket socket : slow) {
        socket.close();
      }
      pool.shutdownNow();
      pool.awaitTermination(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void healthAndMetricsAnswerWhileEverySlotIsBusyAndOverloadIsAJson503() throws Exception {
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
                      if (!release.await(60, TimeUnit.SECONDS)) {
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
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (buying.get() < slots && System.nanoTime() < deadline) {
        Thread.sleep(10); // waiting for HTTP deliveries to reach the provider, not for a lease
      }
      assertEquals(slots, buying.get(), "every slot is busy buying");
      List<Future<HttpResponse<String>>> waiting = new ArrayList<>();
      for (int i = slots; i < slots + queued; i++) {
        CheckoutEvent event = CheckoutEvent.completed("evt_" + i, PaymentStatus.PAID, order(i));
        waiting.add(pool.submit(() -> stripe.deliver(event)));
      }
      // /health and /metrics must not need a slot: one that did would wait behind the busy ones,
      // which are held until release below, or be answered 503 after the queue time. So each 200
      // while no busy delivery has been answered proves it, however long each call takes here.
      long slowest = 0;
      for (int i = 0; i < 20; i++) {
        for (String path : List.of("/health", "/metrics")) {
          long start = System.nanoTime();
          HttpResponse<String> response = stripe.send(stripe.request(path).GET().build());
          long took = Duration.ofNanos(System.nanoTime() - start).toMillis();
          slowest = Math.max(slowest, took);
          assertEquals(200, response.statusCode(), path + ": " + response.body());
          for (Future<HttpResponse<String>> held : busy) {
            assertFalse(held.isDone(), path + " was answered only once a slot was freed");
          }
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
        HttpResponse<String> response = answer.get(30, TimeUnit.SECONDS);
        assertEquals(503, response.statusCode(), response.body());
        assertTrue(response.body().startsWith("{\"error\":\"overloaded\""), response.body());
        assertEquals("30", response.headers().firstValue("Retry-After").orElse(""));
      }
      release.countDown();
      for (Future<HttpResponse<String>> answer : busy) {
        assertEquals(200, answer.get(30, TimeUnit.SECONDS).statusCode());
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
