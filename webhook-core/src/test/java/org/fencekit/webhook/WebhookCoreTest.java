package org.fencekit.webhook;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import com.stripe.net.Webhook;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.fencekit.fulfilment.EventType;
import org.fencekit.fulfilment.FulfilmentHandler;
import org.fencekit.fulfilment.Provider;
import org.fencekit.store.Item;
import org.fencekit.store.OrderSnapshot;
import org.fencekit.store.memory.MemoryOrderStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The core as both adapters build it: the builder's defaults and the setting it names when one is
 * bad, the reader's typed results, the error code counted from the answer, and the drain.
 */
class WebhookCoreTest {

  private static final String SECRET = "whsec_core_test_0123456789";
  private static final Clock CLOCK =
      Clock.fixed(Instant.ofEpochSecond(1_757_851_200L), ZoneOffset.UTC);
  private static final OrderSnapshot ORDER =
      new OrderSnapshot("cs_test_core1", "esim-eu-5gb", 2, "buyer@example.com", 4500, "eur");

  private final CountDownLatch entered = new CountDownLatch(1);
  private final CountDownLatch release = new CountDownLatch(1);
  private volatile boolean gated;
  private final Provider provider =
      purchase -> {
        entered.countDown();
        if (gated && !release.await(20, TimeUnit.SECONDS)) {
          throw new IllegalStateException("never released");
        }
        return new Item("prov-1", "code");
      };
  private final FulfilmentHandler handler =
      FulfilmentHandler.builder(new MemoryOrderStore(CLOCK), provider).clock(CLOCK).build();
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private WebhookCore core;

  @AfterEach
  void close() {
    release.countDown();
    if (core != null) {
      core.close();
    }
    handler.close();
  }

  private WebhookCore.Builder builder() {
    return WebhookCore.builder().handler(handler).secrets(List.of(SECRET)).clock(CLOCK);
  }

  private static String event(String id, String object, String type) {
    JsonObject root = new JsonObject();
    root.addProperty("id", id);
    root.addProperty("object", object);
    root.addProperty("created", 1_757_851_200L);
    root.addProperty("type", type);
    JsonObject session = new JsonObject();
    session.addProperty("id", ORDER.sessionId());
    session.addProperty("object", "checkout.session");
    session.addProperty("payment_status", "paid");
    session.addProperty("amount_total", ORDER.amountTotal());
    session.addProperty("currency", ORDER.currency());
    JsonObject customer = new JsonObject();
    customer.addProperty("email", ORDER.customerEmail());
    session.add("customer_details", customer);
    JsonObject metadata = new JsonObject();
    metadata.addProperty("product_id", ORDER.productId());
    metadata.addProperty("quantity", String.valueOf(ORDER.quantity()));
    session.add("metadata", metadata);
    JsonObject data = new JsonObject();
    data.add("object", session);
    root.add("data", data);
    return root.toString();
  }

  private static String signed(String payload) {
    long t = CLOCK.instant().getEpochSecond();
    try {
      return "t=" + t + ",v1=" + Webhook.Util.computeHmacSha256(SECRET, t + "." + payload);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  private double counted(String name, String tag, String value) {
    var counter = registry.find(name).tag(tag, value).counter();
    return counter == null ? 0 : counter.count();
  }

  @Test
  void theBuilderHoldsTheDefaultsBothAdaptersShare() {
    core = builder().build();
    assertEquals(
        new WebhookCore.Limits(
            WebhookCore.MAX_BODY_BYTES,
            WebhookCore.DEFAULT_BODY_TIMEOUT,
            WebhookCore.DEFAULT_SLOTS,
            WebhookCore.DEFAULT_QUEUE_TIME),
        core.limits());
  }

  @Test
  void theBuilderNamesTheBadSetting() {
    assertEquals(
        "handler",
        assertThrows(NullPointerException.class, () -> WebhookCore.builder().build()).getMessage());
    String noSecret =
        assertThrows(
                IllegalArgumentException.class,
                () -> WebhookCore.builder().handler(handler).secrets(List.of(" ", "")).build())
            .getMessage();
    assertTrue(noSecret.startsWith("STRIPE_WEBHOOK_SECRET is not set"), noSecret);
    String starters =
        assertThrows(
                IllegalArgumentException.class,
                () ->
                    WebhookCore.builder()
                        .handler(handler)
                        .settingNames(new SettingNames("fencekit.stripe.webhook-secret", "k"))
                        .build())
            .getMessage();
    assertTrue(starters.startsWith("fencekit.stripe.webhook-secret is not set"), starters);
    assertBad("slots", builder().slots(0));
    assertBad("queueTime", builder().queueTime(Duration.ZERO));
    assertBad("bodyTimeout", builder().bodyTimeout(Duration.ofSeconds(-1)));
    assertBad("tolerance", builder().tolerance(Duration.ZERO));
    assertBad("maxBodyBytes", builder().maxBodyBytes(0));
  }

  private static void assertBad(String setting, WebhookCore.Builder builder) {
    String message = assertThrows(IllegalArgumentException.class, builder::build).getMessage();
    assertTrue(message.startsWith(setting + " must be"), message);
  }

  @Test
  void theReaderReturnsTheEventOrTheRefusalTyped() {
    core = builder().build();
    EventReader reader = core.reader();
    String completed = event("evt_1", "event", EventType.COMPLETED.stripeName());
    EventReader.Accepted accepted =
        assertInstanceOf(
            EventReader.Accepted.class, reader.read(signed(completed), bytes(completed)));
    assertEquals(ORDER, accepted.event().snapshot());
    assertEquals("evt_1", accepted.event().eventId());

    String invoice = event("evt_2", "event", "invoice.paid");
    EventReader.Accepted other =
        assertInstanceOf(EventReader.Accepted.class, reader.read(signed(invoice), bytes(invoice)));
    assertNull(other.event().snapshot());

    assertRefused(reader.read(null, bytes(completed)), 400, "missing_signature");
    assertRefused(reader.read(signed(completed) + "0", bytes(completed)), 400, "bad_signature");
    String v2 = event("evt_3", "v2.core.event", EventType.COMPLETED.stripeName());
    assertRefused(reader.read(signed(v2), bytes(v2)), 400, "unsupported_event");
    String notJson = "{\"id\":";
    assertRefused(reader.read(signed(notJson), bytes(notJson)), 400, "malformed_json");
    String noProduct = completed.replace("\"product_id\"", "\"sku\"");
    assertRefused(reader.read(signed(noProduct), bytes(noProduct)), 500, "unmappable_session");
  }

  private static void assertRefused(EventReader.Result result, int status, String error) {
    Answer answer = assertInstanceOf(EventReader.Refused.class, result).answer();
    assertEquals(status, answer.status(), answer.body());
    assertEquals(error, answer.error(), answer.body());
    assertTrue(answer.body().startsWith("{\"error\":\"" + error + "\""), answer.body());
  }

  @Test
  void answersAreCountedByTheirStatusAndTheirErrorCode() throws Exception {
    core = builder().meters(registry).build();
    String completed = event("evt_c", "event", EventType.COMPLETED.stripeName());
    assertEquals(
        200, core.webhook(signed(completed), bytes(completed)).get(20, TimeUnit.SECONDS).status());
    Answer refused = core.webhook("t=1,v1=00", bytes(completed)).get();
    assertEquals("bad_signature", refused.error());
    assertNull(core.webhook(signed(completed), bytes(completed)).get(20, TimeUnit.SECONDS).error());
    assertEquals(2, counted("fencekit.webhook.answers", "status", "200"));
    assertEquals(1, counted("fencekit.webhook.answers", "status", "400"));
    assertEquals(1, counted("fencekit.webhook.refusals", "error", "bad_signature"));
    assertEquals(1, registry.find("fencekit.webhook.refusals").counters().size(), "one error code");
  }

  @Test
  void withoutARegistryNothingIsCountedAndEveryAnswerStillComes() throws Exception {
    core = builder().build();
    String completed = event("evt_n", "event", EventType.COMPLETED.stripeName());
    assertEquals(400, core.webhook(null, bytes(completed)).get().status());
    assertEquals(
        200, core.webhook(signed(completed), bytes(completed)).get(20, TimeUnit.SECONDS).status());
    assertTrue(registry.getMeters().isEmpty());
  }

  @Test
  void aDrainAnswersNewDeliveries503WhileTheOneInFlightFinishes() throws Exception {
    gated = true;
    core = builder().meters(registry).build();
    String completed = event("evt_d", "event", EventType.COMPLETED.stripeName());
    CompletableFuture<Answer> inFlight = core.webhook(signed(completed), bytes(completed));
    assertTrue(entered.await(20, TimeUnit.SECONDS), "the provider was called");
    core.drain();
    Answer arriving = core.webhook(signed(completed), bytes(completed)).get();
    assertEquals(503, arriving.status());
    assertEquals("shutting_down", arriving.error());
    assertEquals(WebhookCore.RETRY_AFTER, arriving.headers().get("Retry-After"));
    assertEquals(1, core.inFlight());
    assertEquals(false, core.awaitIdle(Duration.ofMillis(50)), "still in flight");
    release.countDown();
    assertTrue(core.awaitIdle(Duration.ofSeconds(20)), "idle once the delivery is answered");
    Answer answered = inFlight.get();
    assertEquals(200, answered.status(), answered.body());
    assertTrue(answered.body().startsWith("{\"outcome\":\"fulfilled\""), answered.body());
  }
}
