package org.fencekit.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.fencekit.fulfilment.CheckoutEvent;
import org.fencekit.fulfilment.PaymentStatus;
import org.fencekit.fulfilment.scenarios.ScenarioRun;
import org.fencekit.history.ManualClock;
import org.fencekit.store.Item;
import org.fencekit.store.OrderSnapshot;
import org.fencekit.store.memory.MemoryOrderStore;
import org.junit.jupiter.api.Test;

/**
 * The connection timeouts, in real time (they are the network's, not a lease): a client that stops
 * sending is cut off after the idle timeout, while a delivery whose provider call takes longer than
 * the idle timeout is still answered.
 */
class TimeoutsTest {

  private static final Duration IDLE = Duration.ofMillis(500);

  @Test
  void aDeliveryBusyLongerThanTheIdleTimeoutIsStillAnswered() {
    ManualClock clock = new ManualClock(ScenarioRun.START);
    try (MemoryOrderStore store = new MemoryOrderStore(clock);
        WebhookServer server =
            WebhookServer.builder(
                    store,
                    purchase -> {
                      Thread.sleep(4 * IDLE.toMillis()); // a slow provider, in real time
                      return new Item("prov-1", null);
                    })
                .host("127.0.0.1")
                .port(0)
                .clock(clock)
                .secret(StripeDeliveries.SECRET)
                .idleTimeout(IDLE)
                .build()
                .start()) {
      OrderSnapshot order = new OrderSnapshot("cs_test_slow1", "esim", 1, null, 100, "eur");
      HttpResponse<String> answer =
          new StripeDeliveries(server.port(), clock)
              .deliver(CheckoutEvent.completed("evt_1", PaymentStatus.PAID, order));
      assertEquals(200, answer.statusCode(), answer.body());
    }
  }

  @Test
  void aClientThatStopsSendingItsBodyIsCutOffAfterTheIdleTimeout() throws Exception {
    ManualClock clock = new ManualClock(ScenarioRun.START);
    try (MemoryOrderStore store = new MemoryOrderStore(clock);
        WebhookServer server =
            WebhookServer.builder(store, purchase -> new Item("prov-1", null))
                .host("127.0.0.1")
                .port(0)
                .clock(clock)
                .secret(StripeDeliveries.SECRET)
                .idleTimeout(IDLE)
                // far past the bound below: only the idle timeout can close the connection in time
                .bodyTimeout(Duration.ofMinutes(2))
                .build()
                .start();
        Socket socket = new Socket("127.0.0.1", server.port())) {
      socket.setSoTimeout(60_000);
      OutputStream out = socket.getOutputStream();
      out.write(
          ("POST /webhook HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                  + "Stripe-Signature: t=1,v1=x\r\nContent-Length: 1000\r\n\r\n{\"id\":")
              .getBytes(StandardCharsets.US_ASCII));
      out.flush();
      long start = System.nanoTime();
      InputStream in = socket.getInputStream();
      byte[] answer = in.readAllBytes(); // returns when the server closes the connection
      long took = Duration.ofNanos(System.nanoTime() - start).toMillis();
      // generous for a loaded machine (the idle timeout is 0.5 s); without it the connection would
      // stay open until the 2 min body deadline, and the read would time out after 60 s
      assertTrue(took < 30_000, "closed after " + took + " ms");
      String text = new String(answer, StandardCharsets.US_ASCII);
      assertTrue(text.isEmpty() || !text.startsWith("HTTP/1.1 200"), text);
    }
  }
}
