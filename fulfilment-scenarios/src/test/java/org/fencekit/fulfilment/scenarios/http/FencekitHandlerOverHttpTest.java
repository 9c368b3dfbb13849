package org.fencekit.fulfilment.scenarios.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import org.fencekit.fulfilment.CheckoutEvent;
import org.fencekit.fulfilment.FulfilmentHandler;
import org.fencekit.fulfilment.Provider;
import org.fencekit.fulfilment.ProviderException;
import org.fencekit.store.Item;
import org.fencekit.store.OrderSnapshot;
import org.fencekit.store.memory.MemoryOrderStore;
import org.fencekit.testsupport.LoopbackPorts;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The control that is right in another way: fencekit's own {@link FulfilmentHandler}, which
 * heartbeats (a hung call keeps its lease, so later deliveries are answered 409) and answers 500
 * and 503 for a retry, behind a small HTTP endpoint that checks the signature as Stripe's libraries
 * do, holds every scenario the runner plays without a crash.
 */
@Timeout(300)
class FencekitHandlerOverHttpTest {

  private static final String SECRET = "whsec_test_fencekit_handler";

  /**
   * 5 s, as in BlackBoxRunContract: the handler heartbeats every quarter lease and cuts a call off
   * one heartbeat before the lease last renewed runs out, so with 2 s a heartbeat thread stalled
   * for about a second on a loaded machine cut s01's or s02's hanging call off (500 where 200 or
   * 409 was due). The runner's waits scale with it; s02's d2 still comes 1.5 leases after d1's call
   * began, long after a lease that no heartbeat renewed would have run out.
   */
  private static final Duration LEASE = Duration.ofSeconds(5);

  /** Well past s02's hanging call, which the runner holds for 1.5 leases and d2's answer. */
  private static final Duration PROVIDER_TIMEOUT = Duration.ofSeconds(30);

  @TempDir Path dir;

  /** Buys from the runner's provider by its protocol, as a user's client would. */
  private static Provider overHttp(HttpClient client, int providerPort) {
    return purchase -> {
      HttpRequest request =
          HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + providerPort + "/purchases"))
              .timeout(PROVIDER_TIMEOUT)
              .header("Content-Type", "application/json")
              .header("Idempotency-Key", purchase.idempotencyKey())
              .POST(
                  HttpRequest.BodyPublishers.ofString(
                      "{\"order\":\""
                          + purchase.sessionId()
                          + "\",\"product\":\""
                          + purchase.productId()
                          + "\",\"quantity\":"
                          + purchase.quantity()
                          + "}"))
              .build();
      HttpResponse<String> response;
      try {
        response = client.send(request, HttpResponse.BodyHandlers.ofString());
      } catch (IOException e) {
        throw ProviderException.outcomeUnknown("the provider call failed: " + e, e);
      }
      if (response.statusCode() == 200) {
        JsonObject item = JsonParser.parseString(response.body()).getAsJsonObject();
        return new Item(item.get("item_id").getAsString(), item.get("payload").getAsString());
      }
      if (response.statusCode() >= 400 && response.statusCode() < 500) {
        throw ProviderException.nothingBought("refused: " + response.statusCode());
      }
      throw ProviderException.outcomeUnknown("provider answered " + response.statusCode(), null);
    };
  }

  private static CheckoutEvent event(String body) {
    JsonObject json = JsonParser.parseString(body).getAsJsonObject();
    JsonObject session = json.getAsJsonObject("data").getAsJsonObject("object");
    JsonObject metadata = session.getAsJsonObject("metadata");
    OrderSnapshot order =
        new OrderSnapshot(
            session.get("id").getAsString(),
            metadata.get("product_id").getAsString(),
            Integer.parseInt(metadata.get("quantity").getAsString()),
            session.getAsJsonObject("customer_details").get("email").getAsString(),
            session.get("amount_total").getAsLong(),
            session.get("currency").getAsString());
    return CheckoutEvent.of(
        json.get("id").getAsString(),
        json.get("type").getAsString(),
        session.get("payment_status").getAsString(),
        order);
  }

  @Test
  void fencekitsHandlerWithHeartbeatsHoldsEveryScenarioWithoutACrash() throws IOException {
    int providerPort = LoopbackPorts.closed();
    HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    try (FulfilmentHandler handler =
            FulfilmentHandler.builder(new MemoryOrderStore(), overHttp(client, providerPort))
                .lease(LEASE)
                .providerTimeout(PROVIDER_TIMEOUT)
                .build();
        JavaEndpoint endpoint =
            new JavaEndpoint(
                SECRET,
                body -> {
                  CheckoutEvent event;
                  try {
                    event = event(body);
                  } catch (RuntimeException e) { // the runner's unsigned probe, "{}"
                    return 400;
                  }
                  return handler.handle(event).httpStatus();
                })) {
      Captured run =
          Captured.run(
              "--endpoint", endpoint.url(),
              "--secret", SECRET,
              "--provider-port", String.valueOf(providerPort),
              "--lease", LEASE.toSeconds() + "s",
              "--replay-dir", dir.toString());
      assertEquals(BlackBoxRunner.HELD, run.exit(), run.toString());
      assertTrue(
          run.out().contains("16 held, 0 FAILED, 2 skipped"), "s04 and s05 need a crash: " + run);
      assertTrue(
          run.out().matches("(?s).*s01_\\S+ +held +answers (409 200|200 409);.*"),
          "s01's loser asked to retry: " + run);
      assertTrue(
          run.out().matches("(?s).*s02_\\S+ +held +answers 500 409 .*"),
          "s02: the heartbeat kept the lease, so d2 was asked to retry: " + run);
    }
  }
}
