package org.fencekit.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import com.stripe.StripeClient;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.fencekit.fulfilment.CheckoutEvent;
import org.fencekit.fulfilment.PaymentStatus;
import org.fencekit.fulfilment.Provider;
import org.fencekit.fulfilment.Purchase;
import org.fencekit.fulfilment.scenarios.ScenarioRun;
import org.fencekit.history.ManualClock;
import org.fencekit.store.Item;
import org.fencekit.store.OrderSnapshot;
import org.fencekit.store.OrderStore;
import org.fencekit.store.sqlite.SqliteOrderStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The success page against a fake Stripe API on loopback (stripe-java pointed at it with {@code
 * setApiBase}): a session read and fulfilled, unknown and malformed ids refused, an API error, a
 * session unpaid then paid, and the landing racing the webhook on one session: one purchase.
 */
class SuccessPageTest {

  @TempDir Path directory;

  private final ManualClock clock = new ManualClock(ScenarioRun.START);
  private final Map<String, String> purchasesBySession = new ConcurrentHashMap<>();
  private final List<Purchase> purchases = new CopyOnWriteArrayList<>();
  private final FakeStripe stripeApi = new FakeStripe();
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private volatile long providerMillis;
  private volatile HeldPurchase held;
  private OrderStore store;
  private WebhookServer server;
  private StripeDeliveries deliveries;

  @BeforeEach
  void start() throws IOException {
    stripeApi.start();
    store = SqliteOrderStore.builder(directory.resolve("orders.db")).clock(clock).build();
    Provider provider =
        purchase -> {
          purchases.add(purchase);
          purchasesBySession.merge(purchase.sessionId(), "x", String::concat);
          HeldPurchase holding = held;
          if (holding != null) {
            holding.enter(purchase.sessionId());
          }
          if (providerMillis > 0) {
            Thread.sleep(providerMillis);
          }
          return new Item("prov-" + purchases.size(), "LPA:1$test$" + purchases.size());
        };
    server =
        WebhookServer.builder(store, provider)
            .host("127.0.0.1")
            .port(0)
            .clock(clock)
            .secret(StripeDeliveries.SECRET)
            .successPage(
                StripeClient.builder()
                    .setApiKey("sk_test_fencekit_fake")
                    .setApiBase("http://127.0.0.1:" + stripeApi.port())
                    .setMaxNetworkRetries(0)
                    .build())
            .build()
            .start();
    deliveries = new StripeDeliveries(server.port(), clock);
  }

  @AfterEach
  void stop() {
    server.close();
    store.close();
    stripeApi.stop();
  }

  private static OrderSnapshot order(String sessionId) {
    return new OrderSnapshot(sessionId, "esim-eu-5gb", 1, "buyer@example.com", 1500, "eur");
  }

  private HttpResponse<String> land(String sessionId) throws Exception {
    return http.send(
        HttpRequest.newBuilder(
                URI.create(
                    "http://127.0.0.1:"
                        + server.port()
                        + "/checkout/success?session_id="
                        + URLEncoder.encode(sessionId, StandardCharsets.UTF_8)))
            .timeout(Duration.ofSeconds(20))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static JsonObject json(HttpResponse<String> response) {
    assertEquals(1, response.body().strip().lines().count(), "one line: " + response.body());
    return JsonParser.parseString(response.body()).getAsJsonObject();
  }

  private static String state(HttpResponse<String> response) {
    return json(response).get("state").getAsString();
  }

  @Test
  void aPaidSessionIsFulfilledOnceHoweverOftenTheCustomerLands() throws Exception {
    stripeApi.session(order("cs_test_landing1"), "paid");
    HttpResponse<String> first = land("cs_test_landing1");
    assertEquals(200, first.statusCode(), first.body());
    JsonObject shown = json(first);
    assertEquals("fulfilled", shown.get("state").getAsString(), first.body());
    assertEquals("prov-1", shown.getAsJsonObject("item").get("id").getAsString());
    assertEquals("LPA:1$test$1", shown.getAsJsonObject("item").get("payload").getAsString());
    HttpResponse<String> again = land("cs_test_landing1");
    assertEquals("fulfilled", state(again), again.body());
    assertEquals("prov-1", json(again).getAsJsonObject("item").get("id").getAsString());
    assertEquals(1, purchases.size());
    assertEquals("fencekit-order-cs_test_landing1", purchases.get(0).idempotencyKey());
    assertEquals(
        "Bearer sk_test_fencekit_fake", stripeApi.authorizations.get(0), "read with the API key");
  }

  @Test
  void anUnknownSessionIsRefusedAndNothingIsBought() throws Exception {
    HttpResponse<String> response = land("cs_test_nosuchsession");
    assertEquals(400, response.statusCode(), response.body());
    assertEquals("refused", state(response));
    assertTrue(json(response).get("message").getAsString().contains("cs_test_nosuchsession"));
    assertTrue(purchases.isEmpty());
  }

  @Test
  void aMalformedIdIsRefusedBeforeStripeIsAsked() throws Exception {
    for (String id :
        List.of("", "pi_123", "cs_test_../../v1/charges", "cs_test_<script>", "x".repeat(5000))) {
      HttpResponse<String> response = land(id);
      assertEquals(400, response.statusCode(), id + ": " + response.body());
      assertEquals("refused", state(response));
      assertFalse(response.body().contains("<script>"), response.body());
      assertTrue(response.body().length() < 400, "bounded: " + response.body().length());
    }
    HttpResponse<String> missing =
        http.send(
            HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + server.port() + "/checkout/success"))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertEquals(400, missing.statusCode(), missing.body());
    assertEquals(0, stripeApi.requests.size(), "Stripe was never asked");
  }

  @Test
  void anApiErrorAsksTheCustomerToComeBackAndBuysNothing() throws Exception {
    stripeApi.fail("cs_test_apierror", 500);
    HttpResponse<String> response = land("cs_test_apierror");
    assertEquals(503, response.statusCode(), response.body());
    assertEquals("unavailable", state(response));
    assertFalse(response.body().contains("api_error"), "no Stripe text: " + response.body());
    assertTrue(purchases.isEmpty());
  }

  @Test
  void anUnpaidSessionBuysNothingUntilItIsPaid() throws Exception {
    stripeApi.session(order("cs_test_delayed"), "unpaid");
    HttpResponse<String> unpaid = land("cs_test_delayed");
    assertEquals(200, unpaid.statusCode(), unpaid.body());
    assertEquals("unpaid", state(unpaid));
    assertTrue(purchases.isEmpty());
    assertTrue(store.get("cs_test_delayed").isEmpty(), "nothing claimed");
    stripeApi.session(order("cs_test_delayed"), "paid");
    HttpResponse<String> paid = land("cs_test_delayed");
    assertEquals("fulfilled", state(paid), paid.body());
    assertEquals(1, purchases.size());
  }

  @Test
  void aSessionWhoseOrderDiffersFromTheStoredOneShowsFailedAndBuysNothing() throws Exception {
    deliveries.deliver(CheckoutEvent.completed("evt_1", PaymentStatus.PAID, order("cs_test_two")));
    assertEquals(1, purchases.size());
    stripeApi.session(
        new OrderSnapshot("cs_test_two", "esim-world-10gb", 3, "buyer@example.com", 8997, "eur"),
        "paid");
    HttpResponse<String> landed = land("cs_test_two");
    assertEquals(200, landed.statusCode(), landed.body());
    assertEquals("failed", state(landed), landed.body());
    assertEquals(
        "we could not match your order; our team has been told",
        json(landed).get("message").getAsString());
    assertEquals(1, purchases.size(), "the other order was bought");
  }

  @Test
  void aSessionOfAnotherModeIsRefused() throws Exception {
    JsonObject subscription = StripeDeliveries.session(order("cs_test_subscription"), "paid");
    subscription.addProperty("mode", "subscription");
    stripeApi.sessions.put("cs_test_subscription", subscription.toString());
    HttpResponse<String> response = land("cs_test_subscription");
    assertEquals(400, response.statusCode(), response.body());
    assertTrue(json(response).get("message").getAsString().contains("subscription"));
    assertTrue(purchases.isEmpty());
  }

  @Test
  void aLandingWhileTheWebhookBuysShowsProcessingAndBuysNothing() throws Exception {
    String sessionId = "cs_test_heldbywebhook";
    OrderSnapshot order = order(sessionId);
    stripeApi.session(order, "paid");
    HeldPurchase holding = new HeldPurchase(sessionId);
    held = holding;
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try {
      Future<HttpResponse<String>> webhook =
          pool.submit(
              () ->
                  deliveries.deliver(
                      CheckoutEvent.completed("evt_held", PaymentStatus.PAID, order)));
      holding.awaitEntered(); // the webhook holds the order, inside the provider
      HttpResponse<String> shown = land(sessionId);
      assertEquals(202, shown.statusCode(), shown.body());
      assertEquals("processing", state(shown), shown.body());
      holding.release();
      HttpResponse<String> answered = webhook.get(60, TimeUnit.SECONDS);
      assertEquals(200, answered.statusCode(), answered.body());
      assertEquals("fulfilled", state(land(sessionId)));
      assertEquals("x", purchasesBySession.get(sessionId), "one purchase");
    } finally {
      holding.release();
      pool.shutdownNow();
    }
  }

  @Test
  void theWebhookWhileALandingBuysIs409AndBuysNothing() throws Exception {
    String sessionId = "cs_test_heldbylanding";
    OrderSnapshot order = order(sessionId);
    stripeApi.session(order, "paid");
    HeldPurchase holding = new HeldPurchase(sessionId);
    held = holding;
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try {
      Future<HttpResponse<String>> landing = pool.submit(() -> land(sessionId));
      holding.awaitEntered(); // the landing holds the order, inside the provider
      HttpResponse<String> answered =
          deliveries.deliver(CheckoutEvent.completed("evt_held", PaymentStatus.PAID, order));
      assertEquals(409, answered.statusCode(), answered.body());
      holding.release();
      HttpResponse<String> shown = landing.get(60, TimeUnit.SECONDS);
      assertEquals("fulfilled", state(shown), shown.body());
      assertEquals("x", purchasesBySession.get(sessionId), "one purchase");
    } finally {
      holding.release();
      pool.shutdownNow();
    }
  }

  /**
   * Free races, each order tried: however they fall, one purchase and answers from the allowed set.
   * Whether any overlapped is up to the scheduler, so it is not asserted here; the two tests above
   * make them overlap.
   */
  @Test
  void theLandingAndTheWebhookRacingBuyOnce() throws Exception {
    providerMillis = 30;
    ExecutorService both = Executors.newFixedThreadPool(2);
    int overlapped = 0;
    try {
      for (int round = 0; round < 20; round++) {
        String sessionId = "cs_test_race" + round;
        String eventId = "evt_race" + round;
        OrderSnapshot order = order(sessionId);
        stripeApi.session(order, "paid");
        Race.Answers<HttpResponse<String>, HttpResponse<String>> race =
            Race.run(
                both,
                round % 2 == 0,
                () -> land(sessionId),
                () ->
                    deliveries.deliver(
                        CheckoutEvent.completed(eventId, PaymentStatus.PAID, order)));
        HttpResponse<String> shown = race.a();
        HttpResponse<String> answered = race.b();
        assertTrue(
            List.of("fulfilled", "processing").contains(state(shown)),
            "round " + round + ": " + shown.body());
        assertTrue(
            answered.statusCode() == 200 || answered.statusCode() == 409,
            "round " + round + ": " + answered.body());
        if (state(shown).equals("processing") || answered.statusCode() == 409) {
          overlapped++;
        }
        HttpResponse<String> later = land(sessionId);
        assertEquals("fulfilled", state(later), "round " + round + ": " + later.body());
        assertEquals("x", purchasesBySession.get(sessionId), "round " + round + ": one purchase");
      }
    } finally {
      both.shutdownNow();
    }
    System.out.println("SuccessPageTest: " + overlapped + " of 20 free races overlapped");
  }

  @Test
  void aBadApiKeyOrApiBaseIsNamedWithoutPrintingTheKey() {
    IllegalArgumentException key =
        assertThrows(
            IllegalArgumentException.class,
            () -> ServerMain.stripeClient("pk_live_publishable123", "https://api.stripe.com"));
    assertTrue(key.getMessage().startsWith("STRIPE_API_KEY must be"), key.getMessage());
    assertFalse(key.getMessage().contains("publishable123"), key.getMessage());
    IllegalArgumentException base =
        assertThrows(
            IllegalArgumentException.class,
            () -> ServerMain.stripeClient("sk_test_secret123", "ftp://stripe"));
    assertTrue(base.getMessage().contains("--stripe-api-base"), base.getMessage());
    assertFalse(base.getMessage().contains("secret123"), base.getMessage());
  }
}
