package org.fencekit.fulfilment.scenarios.http;

import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import java.util.Objects;

/**
 * One Stripe event about a Checkout session, as Stripe sends it: {@code
 * {"id":"evt_...","object":"event","type":...,"data":{"object":<checkout.session>}}} with the
 * session's real fields ({@code payment_status}, {@code status}, {@code amount_total}, {@code
 * metadata.product_id}, {@code metadata.quantity}, {@code customer_details.email}, ...).
 *
 * @param id the event id ({@code evt_...})
 * @param type {@code checkout.session.completed}, {@code ...async_payment_succeeded} or {@code
 *     ...async_payment_failed}
 * @param sessionId the Checkout session, the order
 * @param paymentStatus the session's {@code payment_status}: paid, unpaid or no_payment_required
 * @param body the JSON the runner posts
 */
record StripeEvent(String id, String type, String sessionId, String paymentStatus, String body) {

  /** The product every scenario order buys, in the session's {@code metadata.product_id}. */
  static final String PRODUCT = "esim-eu-5gb";

  static final String COMPLETED = "checkout.session.completed";
  static final String ASYNC_SUCCEEDED = "checkout.session.async_payment_succeeded";
  static final String ASYNC_FAILED = "checkout.session.async_payment_failed";

  private static final String API_VERSION = "2024-06-20";
  private static final Gson GSON = new GsonBuilder().serializeNulls().create();

  /** Checks every field is present. */
  StripeEvent {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(sessionId, "sessionId");
    Objects.requireNonNull(paymentStatus, "paymentStatus");
    Objects.requireNonNull(body, "body");
  }

  /** Whether this event says the order is paid for: a fulfilment must follow it. */
  boolean paying() {
    return type.equals(ASYNC_SUCCEEDED)
        || (type.equals(COMPLETED) && !paymentStatus.equals("unpaid"));
  }

  /** The event's type without the {@code checkout.session.} prefix, with the payment status. */
  String describe() {
    return type.substring("checkout.session.".length()) + ", " + paymentStatus;
  }

  /** The event {@code id} of {@code type} for {@code sessionId}, created at {@code created}. */
  static StripeEvent of(
      String id, String type, String sessionId, String paymentStatus, long created) {
    JsonObject event = new JsonObject();
    event.addProperty("id", id);
    event.addProperty("object", "event");
    event.addProperty("api_version", API_VERSION);
    event.addProperty("created", created);
    JsonObject data = new JsonObject();
    data.add("object", session(sessionId, paymentStatus, created));
    event.add("data", data);
    event.addProperty("livemode", false);
    event.addProperty("pending_webhooks", 1);
    JsonObject request = new JsonObject();
    request.add("id", null);
    request.add("idempotency_key", null);
    event.add("request", request);
    event.addProperty("type", type);
    return new StripeEvent(id, type, sessionId, paymentStatus, GSON.toJson(event));
  }

  private static JsonObject session(String sessionId, String paymentStatus, long created) {
    boolean free = paymentStatus.equals("no_payment_required");
    long amount = free ? 0 : 1500;
    JsonObject session = new JsonObject();
    session.addProperty("id", sessionId);
    session.addProperty("object", "checkout.session");
    session.addProperty("amount_subtotal", 1500);
    session.addProperty("amount_total", amount);
    JsonObject tax = new JsonObject();
    tax.addProperty("enabled", false);
    tax.add("status", null);
    session.add("automatic_tax", tax);
    session.addProperty("cancel_url", "https://shop.example.com/cancel");
    session.add("client_reference_id", null);
    session.addProperty("created", created);
    session.addProperty("currency", "eur");
    session.add("customer", null);
    session.addProperty("customer_creation", "if_required");
    JsonObject customer = new JsonObject();
    customer.add("address", null);
    customer.addProperty("email", "buyer@example.com");
    customer.addProperty("name", "Test Buyer");
    customer.add("phone", null);
    customer.addProperty("tax_exempt", "none");
    customer.add("tax_ids", new JsonArray());
    session.add("customer_details", customer);
    session.add("customer_email", null);
    session.addProperty("expires_at", created + 86_400);
    session.add("invoice", null);
    session.addProperty("livemode", false);
    session.add("locale", null);
    JsonObject metadata = new JsonObject();
    metadata.addProperty("product_id", PRODUCT);
    metadata.addProperty("quantity", "1");
    session.add("metadata", metadata);
    session.addProperty("mode", "payment");
    session.addProperty("payment_intent", free ? null : "pi_" + sessionId.substring(3));
    JsonArray methods = new JsonArray();
    methods.add("card");
    session.add("payment_method_types", methods);
    session.addProperty("payment_status", paymentStatus);
    session.addProperty("status", "complete");
    session.addProperty("success_url", "https://shop.example.com/thanks");
    JsonObject totals = new JsonObject();
    totals.addProperty("amount_discount", 1500 - amount);
    totals.addProperty("amount_shipping", 0);
    totals.addProperty("amount_tax", 0);
    session.add("total_details", totals);
    session.add("url", null);
    return session;
  }
}
