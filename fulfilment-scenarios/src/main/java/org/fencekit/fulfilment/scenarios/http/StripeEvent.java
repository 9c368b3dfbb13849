package org.fencekit.fulfilment.scenarios.http;

import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
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

  /** The product a scenario's order buys unless it says otherwise. */
  static final String PRODUCT = "esim-eu-5gb";

  /**
   * What a session sells: its {@code metadata.product_id} and {@code metadata.quantity}, and its
   * {@code amount_total} in cents (EUR) when paid.
   */
  record Goods(String product, int quantity, long amount) {

    /** One {@link #PRODUCT} for 15.00 EUR. */
    static final Goods ONE = new Goods(PRODUCT, 1, 1500);

    @Override
    public String toString() {
      return product + " x" + quantity;
    }
  }

  static final String COMPLETED = "checkout.session.completed";
  static final String ASYNC_SUCCEEDED = "checkout.session.async_payment_succeeded";
  static final String ASYNC_FAILED = "checkout.session.async_payment_failed";

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

  /**
   * An event as Stripe posts it, its {@code data.object} a Checkout session; {@link #of} fills in
   * the nulls and zeros that vary.
   */
  private static final String TEMPLATE =
      """
      {"id": null, "object": "event", "api_version": "2024-06-20", "created": 0,
       "data": {"object": {
         "id": null, "object": "checkout.session", "amount_subtotal": 0, "amount_total": 0,
         "automatic_tax": {"enabled": false, "status": null},
         "cancel_url": "https://shop.example.com/cancel", "client_reference_id": null,
         "created": 0, "currency": "eur", "customer": null, "customer_creation": "if_required",
         "customer_details": {"address": null, "email": "buyer@example.com", "name": "Test Buyer",
           "phone": null, "tax_exempt": "none", "tax_ids": []},
         "customer_email": null, "expires_at": 0, "invoice": null, "livemode": false,
         "locale": null, "metadata": {"product_id": null, "quantity": null}, "mode": "payment",
         "payment_intent": null, "payment_method_types": ["card"], "payment_status": null,
         "status": "complete", "success_url": "https://shop.example.com/thanks",
         "total_details": {"amount_discount": 0, "amount_shipping": 0, "amount_tax": 0},
         "url": null}},
       "livemode": false, "pending_webhooks": 1, "request": {"id": null, "idempotency_key": null},
       "type": null}
      """;

  /**
   * The event {@code id} of {@code type} for {@code sessionId}, which sells {@code goods}, created
   * at {@code created}.
   */
  static StripeEvent of(
      String id, String type, String sessionId, String paymentStatus, Goods goods, long created) {
    boolean free = paymentStatus.equals("no_payment_required");
    JsonObject event = JsonParser.parseString(TEMPLATE).getAsJsonObject();
    event.addProperty("id", id);
    event.addProperty("created", created);
    event.addProperty("type", type);
    JsonObject session = event.getAsJsonObject("data").getAsJsonObject("object");
    session.addProperty("id", sessionId);
    session.addProperty("amount_subtotal", goods.amount());
    session.addProperty("amount_total", free ? 0 : goods.amount());
    session.addProperty("created", created);
    session.addProperty("expires_at", created + 86_400);
    session.getAsJsonObject("metadata").addProperty("product_id", goods.product());
    session.getAsJsonObject("metadata").addProperty("quantity", String.valueOf(goods.quantity()));
    session.addProperty("payment_intent", free ? null : "pi_" + sessionId.substring(3));
    session.addProperty("payment_status", paymentStatus);
    session
        .getAsJsonObject("total_details")
        .addProperty("amount_discount", free ? goods.amount() : 0);
    return new StripeEvent(id, type, sessionId, paymentStatus, GSON.toJson(event));
  }
}
