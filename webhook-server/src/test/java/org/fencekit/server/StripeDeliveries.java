package org.fencekit.server;

import com.google.gson.JsonObject;
import com.stripe.net.Webhook;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.security.GeneralSecurityException;
import java.time.Clock;
import java.time.Duration;
import org.fencekit.fulfilment.CheckoutEvent;
import org.fencekit.store.OrderSnapshot;

/**
 * Webhook deliveries as Stripe makes them: the event JSON of a Checkout session, signed with the
 * endpoint's secret ({@code t=<seconds>,v1=<HMAC-SHA256 of "t.body">}, stripe-java's helper),
 * posted over real HTTP.
 */
public final class StripeDeliveries {

  public static final String SECRET = "whsec_test_fencekit_0123456789abcdef";

  private final HttpClient client =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private final URI base;
  private final Clock clock;

  public StripeDeliveries(int port, Clock clock) {
    this.base = URI.create("http://127.0.0.1:" + port);
    this.clock = clock;
  }

  /** The event JSON Stripe sends for {@code event}, its session carrying product metadata. */
  public static String json(CheckoutEvent event) {
    JsonObject root = new JsonObject();
    root.addProperty("id", event.eventId());
    root.addProperty("object", "event");
    root.addProperty("api_version", "2025-09-30.clover");
    root.addProperty("created", 1_757_851_200L);
    root.addProperty("livemode", false);
    root.addProperty("pending_webhooks", 1);
    root.addProperty("type", event.typeName());
    JsonObject data = new JsonObject();
    if (event.snapshot() != null) {
      data.add("object", session(event.snapshot(), event.paymentStatus().stripeName()));
    } else {
      JsonObject other = new JsonObject();
      other.addProperty("id", "in_test_1");
      other.addProperty("object", "invoice");
      data.add("object", other);
    }
    root.add("data", data);
    return root.toString();
  }

  /** A {@code checkout.session} object as Stripe serialises it. */
  public static JsonObject session(OrderSnapshot order, String paymentStatus) {
    JsonObject session = new JsonObject();
    session.addProperty("id", order.sessionId());
    session.addProperty("object", "checkout.session");
    session.addProperty("mode", "payment");
    session.addProperty("status", "complete");
    session.addProperty("payment_status", paymentStatus);
    session.addProperty("amount_total", order.amountTotal());
    session.addProperty("currency", order.currency());
    JsonObject customer = new JsonObject();
    customer.addProperty("email", order.customerEmail());
    session.add("customer_details", customer);
    JsonObject metadata = new JsonObject();
    metadata.addProperty("product_id", order.productId());
    metadata.addProperty("quantity", String.valueOf(order.quantity()));
    session.add("metadata", metadata);
    return session;
  }

  /** {@code t=<now>,v1=<signature>} for {@code payload}, signed with each secret in turn. */
  public String signature(String payload, String... secrets) {
    return signatureAt(clock.instant().getEpochSecond(), payload, secrets);
  }

  public static String signatureAt(long timestamp, String payload, String... secrets) {
    StringBuilder header = new StringBuilder("t=" + timestamp);
    try {
      for (String secret : secrets) {
        header
            .append(",v1=")
            .append(Webhook.Util.computeHmacSha256(secret, timestamp + "." + payload));
      }
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
    return header.toString();
  }

  /** Posts {@code event} as Stripe does, signed with the test secret. */
  public HttpResponse<String> deliver(CheckoutEvent event) {
    return deliver("/webhook", event);
  }

  /** Posts {@code event} to {@code path} as Stripe does, signed with the test secret. */
  public HttpResponse<String> deliver(String path, CheckoutEvent event) {
    String payload = json(event);
    return post(path, payload, signature(payload, SECRET));
  }

  /** Posts a body with the given {@code Stripe-Signature} ({@code null}: none). */
  public HttpResponse<String> post(String path, String body, String signature) {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(base.resolve(path))
            .timeout(Duration.ofSeconds(30))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body));
    if (signature != null) {
      request.header("Stripe-Signature", signature);
    }
    return send(request.build());
  }

  /** Sends any request. */
  public HttpResponse<String> send(HttpRequest request) {
    try {
      return client.send(request, HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new IllegalStateException("request to " + request.uri() + " failed: " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  /** A request to {@code path} on the server. */
  public HttpRequest.Builder request(String path) {
    return HttpRequest.newBuilder(base.resolve(path)).timeout(Duration.ofSeconds(30));
  }
}
