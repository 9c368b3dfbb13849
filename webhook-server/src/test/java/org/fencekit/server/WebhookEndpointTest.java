package org.fencekit.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.io.ByteArrayInputStream;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.fencekit.fulfilment.CheckoutEvent;
import org.fencekit.fulfilment.PaymentStatus;
import org.fencekit.fulfilment.Provider;
import org.fencekit.fulfilment.Purchase;
import org.fencekit.fulfilment.scenarios.ScenarioRun;
import org.fencekit.history.ManualClock;
import org.fencekit.store.ClaimId;
import org.fencekit.store.ClaimResult;
import org.fencekit.store.ForwardingOrderStore;
import org.fencekit.store.Item;
import org.fencekit.store.OrderRecord;
import org.fencekit.store.OrderSnapshot;
import org.fencekit.store.OrderStatus;
import org.fencekit.store.OrderStore;
import org.fencekit.store.StoreUnavailableException;
import org.fencekit.store.WriteResult;
import org.fencekit.store.sqlite.SqliteOrderStore;
import org.fencekit.testsupport.StoreFiles;
import org.fencekit.webhook.WebhookCore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every answer of the endpoint over real HTTP, with payloads signed as Stripe signs them: bad input
 * of every kind answers a one-line JSON error and claims nothing; good deliveries are fulfilled
 * once.
 */
class WebhookEndpointTest {

  private static final OrderSnapshot ORDER =
      new OrderSnapshot("cs_test_endpoint1", "esim-eu-5gb", 1, "buyer@example.com", 1500, "eur");

  @TempDir Path directory;

  private final ManualClock clock = new ManualClock(ScenarioRun.START);
  private final List<Purchase> purchases = new CopyOnWriteArrayList<>();
  private final AtomicBoolean storeDown = new AtomicBoolean();
  private final AtomicBoolean readOnly = new AtomicBoolean();
  private OrderStore store;
  private WebhookServer server;
  private StripeDeliveries stripe;

  @BeforeEach
  void start() {
    store =
        new Switchable(
            SqliteOrderStore.builder(directory.resolve("orders.db")).clock(clock).build());
    Provider provider =
        purchase -> {
          purchases.add(purchase);
          return new Item("prov-" + purchases.size(), "LPA:1$test$" + purchases.size());
        };
    server =
        WebhookServer.builder(store, provider)
            .host("127.0.0.1")
            .port(0)
            .clock(clock)
            .secret("whsec_old_secret_before_rotation")
            .secret(StripeDeliveries.SECRET)
            .build()
            .start();
    stripe = new StripeDeliveries(server.port(), clock);
  }

  @AfterEach
  void stop() {
    server.close();
    store.close();
  }

  private static CheckoutEvent paid(String eventId) {
    return CheckoutEvent.completed(eventId, PaymentStatus.PAID, ORDER);
  }

  /** Checks the answer is one line of JSON with {@code error} and a reason, and nothing changed. */
  private JsonObject refused(HttpResponse<String> response, int status, String error) {
    assertEquals(status, response.statusCode(), response.body());
    String body = response.body();
    assertEquals(1, body.strip().lines().count(), "one line: " + body);
    JsonObject json = JsonParser.parseString(body).getAsJsonObject();
    assertEquals(error, json.get("error").getAsString(), body);
    assertFalse(json.get("reason").getAsString().isBlank(), body);
    assertEquals(Optional.empty(), store.get(ORDER.sessionId()), "nothing claimed");
    assertTrue(purchases.isEmpty(), "nothing bought");
    return json;
  }

  private static String outcome(HttpResponse<String> response) {
    return JsonParser.parseString(response.body()).getAsJsonObject().get("outcome").getAsString();
  }

  @Test
  void aPaidSessionIsFulfilledOnceAndItsRedeliveryBuysNothing() {
    HttpResponse<String> first = stripe.deliver(paid("evt_1"));
    assertEquals(200, first.statusCode(), first.body());
    assertEquals("fulfilled", outcome(first));
    HttpResponse<String> again = stripe.deliver(paid("evt_2"));
    assertEquals(200, again.statusCode(), again.body());
    assertEquals("duplicate", outcome(again));
    assertEquals(1, purchases.size());
    Purchase purchase = purchases.get(0);
    assertEquals("esim-eu-5gb", purchase.productId());
    assertEquals("fencekit-order-cs_test_endpoint1", purchase.idempotencyKey());
    OrderRecord record = store.get(ORDER.sessionId()).orElseThrow();
    assertEquals(OrderStatus.PROVISIONED, record.status());
    assertEquals(ORDER, record.snapshot(), "the session's fields reached the order as sent");
  }

  @Test
  void anotherOrderUnderTheSessionIdIsAnswered422NamingTheFieldsAndBuysNothing() {
    assertEquals(200, stripe.deliver(paid("evt_1")).statusCode());
    OrderRecord before = store.get(ORDER.sessionId()).orElseThrow();
    OrderSnapshot otherCart =
        new OrderSnapshot(
            ORDER.sessionId(), "esim-world-10gb", 3, "buyer@example.com", 1500, "eur");
    HttpResponse<String> answer =
        stripe.deliver(CheckoutEvent.completed("evt_2", PaymentStatus.PAID, otherCart));
    assertEquals(422, answer.statusCode(), answer.body());
    assertEquals(
        "{\"outcome\":\"mismatch\",\"reason\":\"order cs_test_endpoint1 differs from the stored"
            + " order in product_id, quantity: nothing bought; an operator must find out which"
            + " order the session id names\"}",
        answer.body().strip());
    assertEquals(1, purchases.size(), "the other cart was bought");
    assertEquals(before, store.get(ORDER.sessionId()).orElseThrow(), "the order changed");
  }

  @Test
  void anUnpaidSessionClaimsNothingAndItsAsyncSuccessFulfils() {
    HttpResponse<String> unpaid =
        stripe.deliver(CheckoutEvent.completed("evt_1", PaymentStatus.UNPAID, ORDER));
    assertEquals(200, unpaid.statusCode());
    assertEquals("awaiting_payment", outcome(unpaid));
    assertEquals(Optional.empty(), store.get(ORDER.sessionId()));
    HttpResponse<String> paid = stripe.deliver(CheckoutEvent.asyncPaymentSucceeded("evt_2", ORDER));
    assertEquals("fulfilled", outcome(paid));
    assertEquals(1, purchases.size());
  }

  @Test
  void anotherEventTypeIsAcknowledgedAndIgnored() {
    HttpResponse<String> response = stripe.deliver(CheckoutEvent.other("evt_1", "invoice.paid"));
    assertEquals(200, response.statusCode());
    assertEquals("ignored", outcome(response));
  }

  @Test
  void aMissingSignatureIs400() {
    refused(
        stripe.post("/webhook", StripeDeliveries.json(paid("evt_1")), null),
        400,
        "missing_signature");
  }

  @Test
  void aSignatureWithAnotherSecretIs400() {
    String payload = StripeDeliveries.json(paid("evt_1"));
    refused(
        stripe.post("/webhook", payload, stripe.signature(payload, "whsec_someone_else")),
        400,
        "bad_signature");
  }

  @Test
  void aBodyChangedAfterSigningIs400() {
    String payload = StripeDeliveries.json(paid("evt_1"));
    String signature = stripe.signature(payload, StripeDeliveries.SECRET);
    refused(stripe.post("/webhook", payload.replace("1500", "1"), signature), 400, "bad_signature");
  }

  @Test
  void aTimestampOutsideTheToleranceIs400AndOneJustInsideIsAccepted() {
    String payload = StripeDeliveries.json(paid("evt_1"));
    long now = clock.instant().getEpochSecond();
    refused(
        stripe.post(
            "/webhook",
            payload,
            StripeDeliveries.signatureAt(now - 301, payload, StripeDeliveries.SECRET)),
        400,
        "stale_signature");
    HttpResponse<String> inside =
        stripe.post(
            "/webhook",
            payload,
            StripeDeliveries.signatureAt(now - 299, payload, StripeDeliveries.SECRET));
    assertEquals(200, inside.statusCode(), inside.body());
  }

  @Test
  void theToleranceIsReadOnTheServersClock() {
    String payload = StripeDeliveries.json(paid("evt_1"));
    String signature = stripe.signature(payload, StripeDeliveries.SECRET);
    clock.advance(Duration.ofSeconds(301)); // the delivery arrives late by the server's clock
    refused(stripe.post("/webhook", payload, signature), 400, "stale_signature");
  }

  @Test
  void secretRotationAcceptsAnyMatchingV1SignatureAndAnyConfiguredSecret() {
    String payload = StripeDeliveries.json(paid("evt_1"));
    HttpResponse<String> both =
        stripe.post(
            "/webhook",
            payload,
            stripe.signature(payload, "whsec_retired_long_ago", StripeDeliveries.SECRET));
    assertEquals(200, both.statusCode(), both.body());
    String second = StripeDeliveries.json(paid("evt_2"));
    HttpResponse<String> old =
        stripe.post(
            "/webhook", second, stripe.signature(second, "whsec_old_secret_before_rotation"));
    assertEquals(200, old.statusCode(), old.body());
    assertEquals("duplicate", outcome(old));
  }

  @Test
  void signedMalformedJsonIs400() {
    String payload = "{\"id\": \"evt_1\", \"type\": ";
    refused(
        stripe.post("/webhook", payload, stripe.signature(payload, StripeDeliveries.SECRET)),
        400,
        "malformed_json");
    String array = "[1, 2]";
    refused(
        stripe.post("/webhook", array, stripe.signature(array, StripeDeliveries.SECRET)),
        400,
        "malformed_json");
  }

  @Test
  void aBodyOverOneMebibyteIs413WithOrWithoutALength() {
    String big = "{\"pad\":\"" + "x".repeat(WebhookCore.MAX_BODY_BYTES) + "\"}";
    // Many times: a server that answers while the client is still sending, then closes, resets
    // the connection now and then, and the client never reads its 413.
    for (int i = 0; i < 20; i++) {
      refusedTooLarge(big);
    }
  }

  private void refusedTooLarge(String big) {
    refused(
        stripe.post("/webhook", big, stripe.signature(big, StripeDeliveries.SECRET)),
        413,
        "body_too_large");
    HttpRequest chunked =
        stripe
            .request("/webhook")
            .header("Stripe-Signature", stripe.signature(big, StripeDeliveries.SECRET))
            .POST(
                HttpRequest.BodyPublishers.ofInputStream(
                    () -> new ByteArrayInputStream(big.getBytes())))
            .build();
    refused(stripe.send(chunked), 413, "body_too_large");
  }

  @Test
  void anotherMethodIs405AndAnotherPathIs404() {
    HttpResponse<String> get = stripe.send(stripe.request("/webhook").GET().build());
    refused(get, 405, "method_not_allowed");
    assertEquals("POST", get.headers().firstValue("Allow").orElse(""));
    refused(
        stripe.send(
            stripe.request("/webhook").PUT(HttpRequest.BodyPublishers.ofString("{}")).build()),
        405,
        "method_not_allowed");
    refused(stripe.send(stripe.request("/webhooks").GET().build()), 404, "not_found");
    String payload = StripeDeliveries.json(paid("evt_1"));
    refused(
        stripe.post("/", payload, stripe.signature(payload, StripeDeliveries.SECRET)),
        404,
        "not_found");
  }

  @Test
  void aSessionThatCannotBeMappedIsAnErrorStripeRetriesAndTheRetryFulfilsOnceFixed() {
    JsonObject root =
        JsonParser.parseString(StripeDeliveries.json(paid("evt_1"))).getAsJsonObject();
    JsonObject session = root.getAsJsonObject("data").getAsJsonObject("object");
    session.remove("metadata");
    String unmappable = root.toString();
    JsonObject error =
        refused(
            stripe.post(
                "/webhook", unmappable, stripe.signature(unmappable, StripeDeliveries.SECRET)),
            500,
            "unmappable_session");
    assertTrue(error.get("reason").getAsString().contains("cs_test_endpoint1"), error.toString());
    assertTrue(error.get("reason").getAsString().contains("product_id"), error.toString());
    HttpResponse<String> fixed = stripe.deliver(paid("evt_1"));
    assertEquals(200, fixed.statusCode(), fixed.body());
    assertEquals(1, purchases.size());
  }

  @Test
  void anUnknownPaymentStatusIsNeverTakenForPaid() {
    String payload =
        StripeDeliveries.json(paid("evt_1")).replace("\"paid\"", "\"paid_in_bitcoin\"");
    refused(
        stripe.post("/webhook", payload, stripe.signature(payload, StripeDeliveries.SECRET)),
        500,
        "unmappable_session");
  }

  @Test
  void healthSaysWhetherTheStoreAnswers() {
    HttpResponse<String> up = stripe.send(stripe.request("/health").GET().build());
    assertEquals(200, up.statusCode(), up.body());
    storeDown.set(true);
    HttpResponse<String> down = stripe.send(stripe.request("/health").GET().build());
    assertEquals(503, down.statusCode(), down.body());
    assertTrue(down.body().contains("unavailable"), down.body());
  }

  @Test
  void healthSaysWhetherTheStoreCanBeWrittenNotOnlyRead() {
    readOnly.set(true); // a SQLite file made unwritable: reads go on, every write fails
    assertTrue(store.get(ORDER.sessionId()).isEmpty(), "reads still work");
    HttpResponse<String> delivery = stripe.deliver(paid("evt_1"));
    assertEquals(503, delivery.statusCode(), delivery.body());
    HttpResponse<String> health = stripe.send(stripe.request("/health").GET().build());
    assertEquals(503, health.statusCode(), health.body());
    assertTrue(health.body().contains("cannot be written"), health.body());
    readOnly.set(false);
    HttpResponse<String> again = stripe.send(stripe.request("/health").GET().build());
    assertEquals(200, again.statusCode(), again.body());
  }

  @Test
  void healthAndDeliveriesAre503WhileTheStoreFileIsImmutable() {
    Path file = directory.resolve("orders.db");
    StoreFiles.Immutable immutable = StoreFiles.immutable(file);
    try {
      HttpResponse<String> health = stripe.send(stripe.request("/health").GET().build());
      assertEquals(503, health.statusCode(), health.body());
      assertTrue(health.body().contains("store_unavailable"), health.body());
      assertTrue(health.body().contains("can no longer be written"), health.body());
      HttpResponse<String> delivery = stripe.deliver(paid("evt_1"));
      assertEquals(503, delivery.statusCode(), delivery.body());
      assertEquals("store_unavailable", outcome(delivery));
    } finally {
      immutable.close();
    }
    assertTrue(purchases.isEmpty(), "nothing bought");
    HttpResponse<String> again = stripe.send(stripe.request("/health").GET().build());
    assertEquals(200, again.statusCode(), again.body());
    assertEquals("fulfilled", outcome(stripe.deliver(paid("evt_2"))));
  }

  @Test
  void healthAndDeliveriesAre503OnceTheStoreFileIsDeletedOrReplaced() throws Exception {
    Path file = directory.resolve("orders.db");
    StoreFiles.delete(file);
    HttpResponse<String> health = stripe.send(stripe.request("/health").GET().build());
    assertEquals(503, health.statusCode(), health.body());
    assertTrue(health.body().contains("was deleted"), health.body());
    HttpResponse<String> delivery = stripe.deliver(paid("evt_1"));
    assertEquals(503, delivery.statusCode(), delivery.body());
    SqliteOrderStore.builder(file).build().close(); // a new, empty file at the path
    HttpResponse<String> replaced = stripe.send(stripe.request("/health").GET().build());
    assertEquals(503, replaced.statusCode(), replaced.body());
    assertTrue(replaced.body().contains("no longer the file"), replaced.body());
    assertEquals(503, stripe.deliver(paid("evt_2")).statusCode());
    assertTrue(purchases.isEmpty(), "nothing bought into a file no path reaches");
  }

  @Test
  void aStoreThatIsDownIsAnswered503SoStripeRetries() {
    storeDown.set(true);
    HttpResponse<String> response = stripe.deliver(paid("evt_1"));
    assertEquals(503, response.statusCode(), response.body());
    assertEquals("store_unavailable", outcome(response));
  }

  @Test
  void metricsAreServedInPrometheusText() {
    stripe.deliver(paid("evt_1"));
    stripe.post("/webhook", "{}", null);
    HttpResponse<String> metrics = stripe.send(stripe.request("/metrics").GET().build());
    assertEquals(200, metrics.statusCode());
    assertTrue(metrics.headers().firstValue("Content-Type").orElse("").startsWith("text/plain"));
    String text = metrics.body();
    for (String line :
        List.of(
            "fencekit_claims_total{outcome=\"claimed\"} 1.0",
            "fencekit_settles_total{operation=\"complete\",outcome=\"written\"} 1.0",
            "fencekit_webhook_answers_total{status=\"200\"} 1.0",
            "fencekit_webhook_answers_total{status=\"400\"} 1.0",
            "fencekit_deliveries_total{outcome=\"fulfilled\",status=\"200\"} 1.0",
            "fencekit_provider_calls_seconds_count{outcome=\"bought\"} 1",
            "fencekit_provider_calls_in_flight 0.0")) {
      assertTrue(text.contains(line), "no '" + line + "' in\n" + text);
    }
  }

  /** The SQLite store, which the test can take "down": every call then throws. */
  private final class Switchable extends ForwardingOrderStore {
    Switchable(OrderStore store) {
      super(store);
    }

    private void check(String operation, String sessionId) {
      if (readOnly.get() && operation.equals("claim")) {
        throw new StoreUnavailableException(
            "sqlite", operation, sessionId, false, "attempt to write a readonly database", null);
      }
      if (storeDown.get()) {
        throw new StoreUnavailableException(
            "sqlite", operation, sessionId, false, "the test took the store down", null);
      }
    }

    @Override
    public ClaimResult claim(OrderSnapshot snapshot, Duration lease) {
      check("claim", snapshot.sessionId());
      return super.claim(snapshot, lease);
    }

    @Override
    public Optional<OrderRecord> get(String sessionId) {
      check("get", sessionId);
      return super.get(sessionId);
    }

    @Override
    public WriteResult extend(String sessionId, ClaimId claimId, Duration lease) {
      check("extend", sessionId);
      if (readOnly.get()) {
        throw new StoreUnavailableException(
            "sqlite", "extend", sessionId, false, "attempt to write a readonly database", null);
      }
      return super.extend(sessionId, claimId, lease);
    }
  }
}
