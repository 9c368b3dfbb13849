package org.fencekit.server;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParseException;
import com.google.gson.JsonParser;
import com.stripe.exception.SignatureVerificationException;
import com.stripe.net.Webhook;
import io.micrometer.core.instrument.Counter;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.fencekit.fulfilment.CheckoutEvent;
import org.fencekit.fulfilment.EventType;
import org.fencekit.fulfilment.FulfilmentHandler;
import org.fencekit.fulfilment.FulfilmentOutcome;
import org.fencekit.store.OrderSnapshot;
import org.fencekit.store.OrderStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server's routes: {@code POST /webhook} (verified, mapped, handed to the {@link
 * FulfilmentHandler}), {@code GET /health} and {@code GET /metrics}. Every answer is one line of
 * JSON (Prometheus text for the metrics); nothing reaches the handler before the signature, the
 * size, the JSON and the mapping are checked.
 */
final class WebhookEndpoint extends Handler.Abstract {

  private static final Logger LOG = LoggerFactory.getLogger(WebhookEndpoint.class);
  private static final String HEALTH_PROBE = "fencekit-health-probe";

  private final FulfilmentHandler handler;
  private final OrderStore store;
  private final List<String> secrets;
  private final long toleranceSeconds;
  private final Clock clock;
  private final SessionMapping mapping;
  private final PrometheusMeterRegistry registry;
  private final int maxBodyBytes;
  private final AtomicInteger inFlight = new AtomicInteger();
  private volatile boolean draining;

  WebhookEndpoint(
      FulfilmentHandler handler,
      OrderStore store,
      List<String> secrets,
      Duration tolerance,
      Clock clock,
      SessionMapping mapping,
      PrometheusMeterRegistry registry,
      int maxBodyBytes) {
    this.handler = handler;
    this.store = store;
    this.secrets = List.copyOf(secrets);
    this.toleranceSeconds = tolerance.toSeconds();
    this.clock = clock;
    this.mapping = mapping;
    this.registry = registry;
    this.maxBodyBytes = maxBodyBytes;
  }

  @Override
  public boolean handle(Request request, Response response, Callback callback) {
    String path = Request.getPathInContext(request);
    String method = request.getMethod();
    switch (path) {
      case "/webhook" -> {
        if (!method.equals("POST")) {
          response.getHeaders().put(HttpHeader.ALLOW, "POST");
          return answer(response, callback, 405, error("method_not_allowed", "use POST"), true);
        }
        if (draining) {
          response.getHeaders().put(HttpHeader.RETRY_AFTER, "30");
          return answer(
              response,
              callback,
              503,
              error("shutting_down", "this server is shutting down; Stripe will retry"),
              true);
        }
        inFlight.incrementAndGet();
        try {
          Answer answer = webhook(request);
          return answer(response, callback, answer.status(), answer.body(), true);
        } finally {
          inFlight.decrementAndGet();
        }
      }
      case "/health" -> {
        if (!method.equals("GET")) {
          response.getHeaders().put(HttpHeader.ALLOW, "GET");
          return answer(response, callback, 405, error("method_not_allowed", "use GET"), false);
        }
        return health(response, callback);
      }
      case "/metrics" -> {
        if (!method.equals("GET")) {
          response.getHeaders().put(HttpHeader.ALLOW, "GET");
          return answer(response, callback, 405, error("method_not_allowed", "use GET"), false);
        }
        response.setStatus(200);
        response
            .getHeaders()
            .put(HttpHeader.CONTENT_TYPE, "text/plain; version=0.0.4; charset=utf-8");
        response.write(
            true, ByteBuffer.wrap(registry.scrape().getBytes(StandardCharsets.UTF_8)), callback);
        return true;
      }
      default -> {
        return answer(
            response,
            callback,
            404,
            error("not_found", "no route " + path + "; Stripe posts to /webhook"),
            false);
      }
    }
  }

  /** A status and its one-line JSON body. */
  private record Answer(int status, String body) {}

  private Answer webhook(Request request) {
    long declared = request.getLength();
    if (declared > maxBodyBytes) {
      return tooLarge(declared + " bytes declared");
    }
    byte[] body;
    try {
      body = readAtMost(request, maxBodyBytes);
    } catch (IOException e) {
      return new Answer(400, error("unreadable_body", "the body could not be read: " + e));
    }
    if (body == null) {
      return tooLarge("more than " + maxBodyBytes + " bytes sent");
    }
    String payload = new String(body, StandardCharsets.UTF_8);
    String signature = request.getHeaders().get("Stripe-Signature");
    if (signature == null || signature.isBlank()) {
      return new Answer(
          400, error("missing_signature", "no Stripe-Signature header: only Stripe may post here"));
    }
    SignatureVerificationException refused = null;
    boolean verified = false;
    for (String secret : secrets) {
      try {
        Webhook.constructEvent(payload, signature, secret, toleranceSeconds, clock);
        verified = true;
        break;
      } catch (SignatureVerificationException e) {
        refused = e;
      } catch (JsonParseException e) {
        return new Answer(400, error("malformed_json", "the signed body is not valid JSON"));
      }
    }
    if (!verified) {
      String reason = refused == null ? "no secret" : refused.getMessage();
      boolean stale = reason.contains("tolerance");
      return new Answer(
          400,
          error(
              stale ? "stale_signature" : "bad_signature",
              stale
                  ? "the signature's timestamp is more than "
                      + toleranceSeconds
                      + " s from the server's clock (a replayed or delayed delivery, or a clock"
                      + " out of step)"
                  : "the Stripe-Signature does not match the body for any configured secret ("
                      + reason
                      + ")"));
    }
    JsonObject root;
    try {
      JsonElement parsed = JsonParser.parseString(payload);
      if (!parsed.isJsonObject()) {
        return new Answer(400, error("malformed_json", "the body is not a JSON object"));
      }
      root = parsed.getAsJsonObject();
    } catch (JsonParseException e) {
      return new Answer(400, error("malformed_json", "the signed body is not valid JSON"));
    }
    CheckoutEvent event;
    String sessionId = null;
    try {
      String eventId = MetadataMapping.string(root, "id");
      String type = MetadataMapping.string(root, "type");
      if (eventId == null || type == null) {
        return new Answer(400, error("malformed_event", "the event has no id or no type"));
      }
      if (EventType.of(type) == EventType.OTHER) {
        event = CheckoutEvent.other(eventId, type);
      } else {
        JsonObject data = MetadataMapping.object(root, "data");
        JsonObject session = data == null ? null : MetadataMapping.object(data, "object");
        if (session == null) {
          throw new IllegalArgumentException("the event has no data.object (the session)");
        }
        sessionId = MetadataMapping.string(session, "id");
        String paymentStatus = MetadataMapping.string(session, "payment_status");
        if (paymentStatus == null) {
          throw new IllegalArgumentException("the session has no payment_status");
        }
        OrderSnapshot snapshot = mapping.snapshot(session);
        event = CheckoutEvent.of(eventId, type, paymentStatus, snapshot);
      }
    } catch (IllegalArgumentException | NullPointerException e) {
      LOG.error(
          "webhook: a signed Checkout event for session {} cannot be mapped to an order ({});"
              + " answering 500 so Stripe retries: fix the mapping and the retry fulfils it",
          sessionId,
          e.getMessage());
      return new Answer(
          500,
          error(
              "unmappable_session",
              "session " + sessionId + " cannot be mapped to an order: " + e.getMessage()));
    }
    FulfilmentOutcome outcome;
    try {
      outcome = handler.handle(event);
    } catch (RuntimeException e) {
      LOG.error("webhook: the handler failed on event {}: {}", event.eventId(), e.toString(), e);
      return new Answer(500, error("internal", "the handler failed: " + e));
    }
    JsonObject json = new JsonObject();
    json.addProperty("outcome", outcome.kind().name().toLowerCase(Locale.ROOT));
    json.addProperty("reason", outcome.reason());
    return new Answer(outcome.httpStatus(), json.toString());
  }

  private Answer tooLarge(String what) {
    return new Answer(
        413,
        error(
            "body_too_large",
            "a webhook body is at most " + maxBodyBytes + " bytes (" + what + ")"));
  }

  /** The body, or {@code null} if it is longer than {@code limit}. */
  private static byte[] readAtMost(Request request, int limit) throws IOException {
    try (InputStream in = Content.Source.asInputStream(request)) {
      byte[] bytes = in.readNBytes(limit + 1);
      return bytes.length > limit ? null : bytes;
    }
  }

  /** From now on new deliveries are answered 503; those in flight go on. */
  void drain() {
    draining = true;
  }

  /** Deliveries being handled now. */
  int inFlight() {
    return inFlight.get();
  }

  private boolean health(Response response, Callback callback) {
    if (draining) {
      return answer(
          response, callback, 503, error("shutting_down", "this server is shutting down"), false);
    }
    try {
      store.get(HEALTH_PROBE);
      JsonObject json = new JsonObject();
      json.addProperty("status", "ok");
      json.addProperty("store", store.toString());
      return answer(response, callback, 200, json.toString(), false);
    } catch (RuntimeException e) {
      LOG.warn("health: the store does not answer: {}", e.toString());
      JsonObject json = new JsonObject();
      json.addProperty("status", "unavailable");
      json.addProperty("reason", "the store does not answer: " + e.getMessage());
      return answer(response, callback, 503, json.toString(), false);
    }
  }

  private boolean answer(
      Response response, Callback callback, int status, String body, boolean webhook) {
    if (webhook) {
      Counter.builder("fencekit.webhook.answers")
          .description("Answers to POST /webhook by HTTP status")
          .tag("status", String.valueOf(status))
          .register(registry)
          .increment();
    }
    response.setStatus(status);
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
    response.write(true, ByteBuffer.wrap((body + "\n").getBytes(StandardCharsets.UTF_8)), callback);
    return true;
  }

  /** A one-line JSON error. */
  static String error(String error, String reason) {
    JsonObject json = new JsonObject();
    json.addProperty("error", error);
    json.addProperty("reason", reason);
    return json.toString();
  }
}
