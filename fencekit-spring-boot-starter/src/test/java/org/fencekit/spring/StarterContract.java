package org.fencekit.spring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.fencekit.fulfilment.CheckoutEvent;
import org.fencekit.fulfilment.PaymentStatus;
import org.fencekit.server.FakeStripe;
import org.fencekit.server.HeldPurchase;
import org.fencekit.server.Race;
import org.fencekit.server.StripeDeliveries;
import org.fencekit.store.OrderSnapshot;
import org.fencekit.store.OrderStore;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;

/**
 * The starter in an application on a real embedded server (Tomcat), over one store: a signed
 * delivery fulfilled once, its redelivery a duplicate, a bad signature refused as the server
 * refuses it, the success page and the webhook racing on one session, the meters on the
 * application's registry, the health indicator DOWN when the store is.
 */
@SpringBootTest(
    classes = StarterContract.TestApplication.class,
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = "management.endpoint.health.show-components=always")
@DirtiesContext
abstract class StarterContract {

  static final String DATA_SOURCE_AUTO_CONFIGURATION =
      "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration";

  /** Stripe's API, for the success page; one for the whole run. */
  static final FakeStripe STRIPE = started();

  /** An application with the starter and one provider bean. */
  @SpringBootConfiguration
  @EnableAutoConfiguration
  static class TestApplication {
    @Bean
    RecordingProvider provider() {
      return new RecordingProvider();
    }
  }

  @LocalServerPort int port;
  @Autowired RecordingProvider provider;
  @Autowired MeterRegistry registry;
  @Autowired OrderStore store;

  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  private static FakeStripe started() {
    FakeStripe stripe = new FakeStripe();
    try {
      stripe.start();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return stripe;
  }

  /** The webhook's secret and the fake Stripe API, as every application of these tests has. */
  static void stripe(DynamicPropertyRegistry properties) {
    properties.add("fencekit.stripe.webhook-secret", () -> StripeDeliveries.SECRET);
    properties.add("fencekit.stripe.api-key", () -> "sk_test_fencekit_fake");
    properties.add("fencekit.stripe.api-base", () -> "http://127.0.0.1:" + STRIPE.port());
  }

  StripeDeliveries deliveries() {
    return new StripeDeliveries(port, Clock.systemUTC());
  }

  static OrderSnapshot order(String sessionId) {
    return new OrderSnapshot(sessionId, "esim-eu-5gb", 1, "buyer@example.com", 1500, "eur");
  }

  static JsonObject json(HttpResponse<String> response) {
    assertEquals(1, response.body().strip().lines().count(), "one line: " + response.body());
    return JsonParser.parseString(response.body()).getAsJsonObject();
  }

  HttpResponse<String> get(String path) {
    try {
      return http.send(
          HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
              .timeout(Duration.ofSeconds(30))
              .build(),
          HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  HttpResponse<String> land(String sessionId) {
    return get(
        "/checkout/success?session_id=" + URLEncoder.encode(sessionId, StandardCharsets.UTF_8));
  }

  private String unique(String prefix) {
    return prefix + Long.toHexString(System.nanoTime());
  }

  @Test
  void aSignedDeliveryIsFulfilledOnceAndItsRedeliveryIsADuplicate() {
    String sessionId = unique("cs_test_once");
    CheckoutEvent event =
        CheckoutEvent.completed(unique("evt_once"), PaymentStatus.PAID, order(sessionId));
    HttpResponse<String> first = deliveries().deliver("/stripe/webhook", event);
    assertEquals(200, first.statusCode(), first.body());
    assertEquals("fulfilled", json(first).get("outcome").getAsString(), first.body());
    assertEquals("application/json", first.headers().firstValue("Content-Type").orElse(""));
    HttpResponse<String> again = deliveries().deliver("/stripe/webhook", event);
    assertEquals(200, again.statusCode(), again.body());
    assertEquals("duplicate", json(again).get("outcome").getAsString(), again.body());
    assertEquals(1, provider.purchases(sessionId), "one purchase");
  }

  @Test
  void aBadSignatureIs400WithTheServersJsonAndBuysNothing() {
    String sessionId = unique("cs_test_forged");
    String payload =
        StripeDeliveries.json(
            CheckoutEvent.completed(unique("evt_forged"), PaymentStatus.PAID, order(sessionId)));
    HttpResponse<String> forged =
        deliveries()
            .post("/stripe/webhook", payload, deliveries().signature(payload, "whsec_not_ours"));
    assertEquals(400, forged.statusCode(), forged.body());
    assertEquals("bad_signature", json(forged).get("error").getAsString(), forged.body());
    HttpResponse<String> unsigned = deliveries().post("/stripe/webhook", payload, null);
    assertEquals(400, unsigned.statusCode(), unsigned.body());
    assertEquals("missing_signature", json(unsigned).get("error").getAsString());
    assertEquals(0, provider.purchases(sessionId));
  }

  @Test
  void theSuccessPageWhileTheWebhookBuysShowsProcessingAndBuysNothing() throws Exception {
    String sessionId = unique("cs_test_heldbywebhook");
    OrderSnapshot order = order(sessionId);
    STRIPE.session(order, "paid");
    CheckoutEvent event = CheckoutEvent.completed(unique("evt_held"), PaymentStatus.PAID, order);
    HeldPurchase holding = new HeldPurchase(sessionId);
    provider.held = holding;
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try {
      Future<HttpResponse<String>> webhook =
          pool.submit(() -> deliveries().deliver("/stripe/webhook", event));
      holding.awaitEntered(); // the webhook holds the order, inside the provider
      HttpResponse<String> shown = land(sessionId);
      assertEquals(202, shown.statusCode(), shown.body());
      assertEquals("processing", json(shown).get("state").getAsString(), shown.body());
      holding.release();
      HttpResponse<String> answered = webhook.get(60, TimeUnit.SECONDS);
      assertEquals(200, answered.statusCode(), answered.body());
      assertEquals("fulfilled", json(land(sessionId)).get("state").getAsString());
      assertEquals(1, provider.purchases(sessionId), "one purchase");
    } finally {
      holding.release();
      provider.held = null;
      pool.shutdownNow();
    }
  }

  @Test
  void theWebhookWhileTheSuccessPageBuysIs409AndBuysNothing() throws Exception {
    String sessionId = unique("cs_test_heldbylanding");
    OrderSnapshot order = order(sessionId);
    STRIPE.session(order, "paid");
    CheckoutEvent event = CheckoutEvent.completed(unique("evt_held"), PaymentStatus.PAID, order);
    HeldPurchase holding = new HeldPurchase(sessionId);
    provider.held = holding;
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try {
      Future<HttpResponse<String>> landing = pool.submit(() -> land(sessionId));
      holding.awaitEntered(); // the landing holds the order, inside the provider
      HttpResponse<String> answered = deliveries().deliver("/stripe/webhook", event);
      assertEquals(409, answered.statusCode(), answered.body());
      holding.release();
      HttpResponse<String> shown = landing.get(60, TimeUnit.SECONDS);
      assertEquals("fulfilled", json(shown).get("state").getAsString(), shown.body());
      assertEquals(1, provider.purchases(sessionId), "one purchase");
    } finally {
      holding.release();
      provider.held = null;
      pool.shutdownNow();
    }
  }

  /**
   * Free races, each order tried: however they fall, one purchase and answers from the allowed set.
   * Whether any overlapped is up to the scheduler, so it is not asserted here; the two tests above
   * make them overlap.
   */
  @Test
  void theSuccessPageAndTheWebhookRacingBuyOnce() throws Exception {
    provider.millis = 30;
    ExecutorService both = Executors.newFixedThreadPool(2);
    try {
      for (int round = 0; round < 20; round++) {
        String sessionId = unique("cs_test_race" + round + "x");
        OrderSnapshot order = order(sessionId);
        STRIPE.session(order, "paid");
        CheckoutEvent event =
            CheckoutEvent.completed(unique("evt_race"), PaymentStatus.PAID, order);
        Race.Answers<HttpResponse<String>, HttpResponse<String>> race =
            Race.run(
                both,
                round % 2 == 0,
                () -> land(sessionId),
                () -> deliveries().deliver("/stripe/webhook", event));
        HttpResponse<String> shown = race.a();
        HttpResponse<String> answered = race.b();
        String state = json(shown).get("state").getAsString();
        assertTrue(
            List.of("fulfilled", "processing").contains(state),
            "round " + round + ": " + shown.body());
        assertTrue(
            answered.statusCode() == 200 || answered.statusCode() == 409,
            "round " + round + ": " + answered.body());
        HttpResponse<String> later = land(sessionId);
        assertEquals("fulfilled", json(later).get("state").getAsString(), "round " + round);
        assertEquals(1, provider.purchases(sessionId), "round " + round + ": one purchase");
      }
    } finally {
      provider.millis = 0;
      both.shutdownNow();
    }
  }

  @Test
  void theHandlersAndTheWebhooksMetersAreOnTheApplicationsRegistry() {
    String sessionId = unique("cs_test_meters");
    HttpResponse<String> answer =
        deliveries()
            .deliver(
                "/stripe/webhook",
                CheckoutEvent.completed(
                    unique("evt_meters"), PaymentStatus.PAID, order(sessionId)));
    assertEquals(200, answer.statusCode(), answer.body());
    assertTrue(registry.find("fencekit.claims").tag("outcome", "claimed").counter().count() >= 1);
    assertTrue(
        registry.find("fencekit.provider.calls").tag("outcome", "bought").timer().count() >= 1);
    assertTrue(
        registry.find("fencekit.webhook.answers").tag("status", "200").counter().count() >= 1);
    assertTrue(registry.find("fencekit.deliveries").counters().size() >= 1);
  }

  @Test
  @DirtiesContext(methodMode = DirtiesContext.MethodMode.AFTER_METHOD)
  void theHealthIndicatorIsDownWhenTheStoreIs() {
    HttpResponse<String> up = get("/actuator/health");
    assertEquals(200, up.statusCode(), up.body());
    JsonObject fencekit =
        JsonParser.parseString(up.body())
            .getAsJsonObject()
            .getAsJsonObject("components")
            .getAsJsonObject("fencekit");
    assertEquals("UP", fencekit.get("status").getAsString(), up.body());
    store.close();
    HttpResponse<String> down = get("/actuator/health");
    assertEquals(503, down.statusCode(), down.body());
    fencekit =
        JsonParser.parseString(down.body())
            .getAsJsonObject()
            .getAsJsonObject("components")
            .getAsJsonObject("fencekit");
    assertEquals("DOWN", fencekit.get("status").getAsString(), down.body());
  }
}
