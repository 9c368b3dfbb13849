package org.fencekit.server;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParseException;
import com.google.gson.JsonParser;
import com.google.gson.Strictness;
import com.google.gson.stream.JsonReader;
import com.google.gson.stream.JsonToken;
import io.micrometer.core.instrument.Counter;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.StringReader;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpHeaderValue;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.Scheduler;
import org.fencekit.fulfilment.CheckoutEvent;
import org.fencekit.fulfilment.EventType;
import org.fencekit.fulfilment.FulfilmentHandler;
import org.fencekit.fulfilment.FulfilmentOutcome;
import org.fencekit.store.OrderSnapshot;
import org.fencekit.store.OrderStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server's routes: {@code POST /webhook}, {@code GET /health} and {@code GET /metrics}. Every
 * answer is one line of JSON (Prometheus text for the metrics).
 *
 * <p>A delivery:
 *
 * <ol>
 *   <li>its body is read without holding a thread, within the body deadline and the size limit; a
 *       slow client holds its connection only, and is cut off at the deadline (408);
 *   <li>on a Jetty thread: the signature, the JSON and the mapping are checked (any refusal is
 *       answered here, without a delivery slot);
 *   <li>in a delivery slot (a thread of the delivery pool), the {@link FulfilmentHandler} handles
 *       it; a delivery that waits for a slot longer than the queue time is answered 503.
 * </ol>
 *
 * {@code /health} and {@code /metrics} never wait for a delivery slot.
 */
final class WebhookEndpoint extends Handler.Abstract {

  private static final Logger LOG = LoggerFactory.getLogger(WebhookEndpoint.class);

  /** Retry-After, in seconds, of a 503. */
  static final String RETRY_AFTER = "30";

  /**
   * A body over the limit is read on and discarded up to this many times the limit before the 413
   * is sent (so the client is not still sending when the connection closes); a declared length over
   * it is refused at once.
   */
  private static final int DRAIN_FACTOR = 4;

  private final FulfilmentHandler handler;
  private final StripeSignature signature;
  private final Clock clock;
  private final SessionMapping mapping;
  private final SuccessPage successPage;
  private final PrometheusMeterRegistry registry;
  private final int maxBodyBytes;
  private final Duration bodyTimeout;
  private final Duration queueTime;
  private final int slots;
  private final ThreadPoolExecutor deliveries;
  private final HealthProbe health;
  private final AtomicInteger inFlight = new AtomicInteger();
  private volatile boolean draining;

  /** The endpoint's limits. */
  record Limits(int maxBodyBytes, Duration bodyTimeout, int slots, Duration queueTime) {}

  WebhookEndpoint(
      FulfilmentHandler handler,
      OrderStore store,
      List<String> secrets,
      Duration tolerance,
      Clock clock,
      SessionMapping mapping,
      SuccessPage successPage,
      PrometheusMeterRegistry registry,
      Limits limits) {
    this.handler = handler;
    this.signature = new StripeSignature(secrets, tolerance.toSeconds());
    this.clock = clock;
    this.mapping = mapping;
    this.successPage = successPage;
    this.registry = registry;
    this.maxBodyBytes = limits.maxBodyBytes();
    this.bodyTimeout = limits.bodyTimeout();
    this.queueTime = limits.queueTime();
    this.slots = limits.slots();
    AtomicInteger threadNumber = new AtomicInteger();
    this.deliveries =
        new ThreadPoolExecutor(
            slots,
            slots,
            60,
            TimeUnit.SECONDS,
            new LinkedBlockingQueue<>(1024),
            runnable -> {
              Thread thread =
                  new Thread(runnable, "fencekit-delivery-" + threadNumber.incrementAndGet());
              thread.setDaemon(true);
              return thread;
            });
    this.health = new HealthProbe(store, Duration.ofSeconds(5));
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
          return shuttingDown(response, callback, true);
        }
        long declared = request.getLength();
        if (declared > DRAIN_FACTOR * maxBodyBytes) {
          response.getHeaders().put(HttpHeader.CONNECTION, HttpHeaderValue.CLOSE);
          return answer(response, callback, 413, tooLarge(declared + " bytes declared"), true);
        }
        new BodyReader(request, response, callback).start();
        return true;
      }
      case "/health" -> {
        if (!method.equals("GET")) {
          response.getHeaders().put(HttpHeader.ALLOW, "GET");
          return answer(response, callback, 405, error("method_not_allowed", "use GET"), false);
        }
        if (draining) {
          return shuttingDown(response, callback, false);
        }
        health
            .check()
            .whenComplete(
                (result, failure) -> {
                  if (result == null) {
                    answer(response, callback, 503, error("store_unavailable", "no answer"), false);
                  } else {
                    answer(response, callback, result.ok() ? 200 : 503, result.json(), false);
                  }
                });
        return true;
      }
      case SuccessPage.PATH -> {
        if (!method.equals("GET")) {
          response.getHeaders().put(HttpHeader.ALLOW, "GET");
          return answer(response, callback, 405, error("method_not_allowed", "use GET"), false);
        }
        if (successPage == null) {
          return answer(
              response,
              callback,
              404,
              error(
                  "success_page_off",
                  "this server has no Stripe API key: set STRIPE_API_KEY to serve the success"
                      + " page"),
              false);
        }
        if (draining) {
          return shuttingDown(response, callback, false);
        }
        String sessionId = Request.extractQueryParameters(request).getValue("session_id");
        dispatch(
            request,
            response,
            callback,
            false,
            () -> {
              SuccessPage.Result shown = successPage.fulfil(sessionId);
              return new Answer(shown.state().httpStatus(), shown.json());
            });
        return true;
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
            error("not_found", "no route " + Untrusted.id(path) + "; Stripe posts to /webhook"),
            false);
      }
    }
  }

  /** A status and its one-line JSON body. */
  record Answer(int status, String body) {}

  /**
   * Reads a delivery's body without holding a thread: chunks as they arrive, at most {@code
   * maxBodyBytes}, all of it within {@code bodyTimeout}; then hands the delivery on.
   */
  private final class BodyReader implements Runnable {
    private final Request request;
    private final Response response;
    private final Callback callback;
    private final AtomicBoolean answered = new AtomicBoolean();
    private byte[] body = new byte[4096];
    private int size;
    private long discarded;
    private Scheduler.Task deadline;

    BodyReader(Request request, Response response, Callback callback) {
      this.request = request;
      this.response = response;
      this.callback = callback;
    }

    void start() {
      deadline =
          request
              .getComponents()
              .getScheduler()
              .schedule(this::timedOut, bodyTimeout.toMillis(), TimeUnit.MILLISECONDS);
      run();
    }

    @Override
    public void run() {
      while (!answered.get()) {
        var chunk = request.read();
        if (chunk == null) {
          request.demand(this);
          return;
        }
        if (chunk.getFailure() != null) {
          boolean idle = chunk.getFailure() instanceof java.util.concurrent.TimeoutException;
          chunk.release();
          refuse(
              idle ? 408 : 400,
              idle
                  ? error(
                      "body_timeout",
                      "the body stopped arriving (the connection was idle too long)")
                  : error("unreadable_body", "the body could not be read (broken framing)"));
          return;
        }
        ByteBuffer bytes = chunk.getByteBuffer();
        int n = bytes.remaining();
        if (discarded > 0 || (long) size + n > maxBodyBytes) {
          // Too large: read on and discard what is still coming, up to a bound, so the client
          // is reading when the 413 arrives; closing on a client still sending resets the
          // connection, and the reset can destroy the answer before the client reads it.
          discarded += n;
          boolean last = chunk.isLast();
          chunk.release();
          if (last || discarded > DRAIN_FACTOR * maxBodyBytes) {
            refuse(413, tooLarge("more than " + maxBodyBytes + " bytes sent"));
            return;
          }
          continue;
        }
        if (size + n > body.length) {
          body =
              java.util.Arrays.copyOf(
                  body, Math.min(maxBodyBytes, Math.max(2 * body.length, size + n)));
        }
        bytes.get(body, size, n);
        size += n;
        boolean last = chunk.isLast();
        chunk.release();
        if (last) {
          if (answered.compareAndSet(false, true)) {
            deadline.cancel();
            arrived(request, java.util.Arrays.copyOf(body, size), response, callback);
          }
          return;
        }
      }
    }

    private void timedOut() {
      if (discarded > 0) {
        refuse(413, tooLarge("more than " + maxBodyBytes + " bytes sent"));
        return;
      }
      refuse(
          408,
          error(
              "body_timeout",
              "the body did not arrive within " + bodyTimeout.toMillis() + " ms of its headers"));
    }

    private void refuse(int status, String json) {
      if (answered.compareAndSet(false, true)) {
        deadline.cancel();
        response.getHeaders().put(HttpHeader.CONNECTION, HttpHeaderValue.CLOSE);
        answer(response, callback, status, json, true);
      }
    }
  }

  /** The whole body is here: checked at once, then handled in a delivery slot. */
  private void arrived(Request request, byte[] body, Response response, Callback callback) {
    Object checked = check(request.getHeaders().get("Stripe-Signature"), body);
    if (checked instanceof Answer refused) {
      answer(response, callback, refused.status(), refused.body(), true);
      return;
    }
    CheckoutEvent event = (CheckoutEvent) checked;
    dispatch(request, response, callback, true, () -> handle(event));
  }

  /**
   * Runs {@code work} on the delivery pool and answers what it returns; answers 503 overloaded if
   * no slot frees up within the queue time, and 503 shutting_down if the server began draining
   * meanwhile.
   */
  private void dispatch(
      Request request,
      Response response,
      Callback callback,
      boolean webhook,
      Supplier<Answer> work) {
    AtomicBoolean taken = new AtomicBoolean();
    inFlight.incrementAndGet();
    Runnable delivery =
        () -> {
          if (!taken.compareAndSet(false, true)) {
            return;
          }
          try {
            if (draining) {
              shuttingDown(response, callback, webhook);
              return;
            }
            Answer answer = work.get();
            answer(response, callback, answer.status(), answer.body(), webhook);
          } finally {
            inFlight.decrementAndGet();
          }
        };
    try {
      deliveries.execute(delivery);
    } catch (RejectedExecutionException e) {
      taken.set(true);
      inFlight.decrementAndGet();
      overloaded(response, callback, webhook);
      return;
    }
    request
        .getComponents()
        .getScheduler()
        .schedule(
            () -> {
              if (taken.compareAndSet(false, true)) {
                inFlight.decrementAndGet();
                overloaded(response, callback, webhook);
              }
            },
            queueTime.toMillis(),
            TimeUnit.MILLISECONDS);
  }

  private boolean overloaded(Response response, Callback callback, boolean webhook) {
    response.getHeaders().put(HttpHeader.RETRY_AFTER, RETRY_AFTER);
    return answer(
        response,
        callback,
        503,
        error(
            "overloaded",
            slots
                + " requests are being handled and this one waited "
                + queueTime.toMillis()
                + " ms for a slot; "
                + (webhook ? "Stripe will retry" : "try again after Retry-After")),
        webhook);
  }

  /** 503 shutting_down with Retry-After; counted as a webhook answer if {@code webhook}. */
  private boolean shuttingDown(Response response, Callback callback, boolean webhook) {
    response.getHeaders().put(HttpHeader.RETRY_AFTER, RETRY_AFTER);
    return answer(
        response,
        callback,
        503,
        error("shutting_down", "this server is shutting down; try again after Retry-After"),
        webhook);
  }

  /**
   * The delivery's event, or the {@link Answer} refusing it: signature, then JSON, then the event's
   * fields, then the mapping.
   */
  Object check(String header, byte[] body) {
    if (header == null || header.isBlank()) {
      return new Answer(
          400, error("missing_signature", "no Stripe-Signature header: only Stripe may post here"));
    }
    StripeSignature.Refusal refusal =
        signature.check(header, body, clock.instant().getEpochSecond());
    if (refusal != null) {
      return new Answer(400, error(refusal.error(), refusal.reason()));
    }
    JsonObject root;
    try {
      String payload =
          StandardCharsets.UTF_8
              .newDecoder()
              .onMalformedInput(CodingErrorAction.REPORT)
              .onUnmappableCharacter(CodingErrorAction.REPORT)
              .decode(ByteBuffer.wrap(body))
              .toString();
      JsonReader reader = new JsonReader(new StringReader(payload));
      reader.setStrictness(Strictness.STRICT);
      reader.setNestingLimit(64);
      JsonElement parsed = JsonParser.parseReader(reader);
      if (!parsed.isJsonObject() || reader.peek() != JsonToken.END_DOCUMENT) {
        return malformed("the signed body is not one JSON object (an event)");
      }
      root = parsed.getAsJsonObject();
    } catch (CharacterCodingException e) {
      return malformed("the signed body is not UTF-8");
    } catch (JsonParseException | IOException | IllegalStateException e) {
      return malformed("the signed body is not valid JSON");
    }
    String eventId = text(root.get("id"));
    String type = text(root.get("type"));
    if (eventId == null || type == null) {
      return malformed("the event has no \"id\" or no \"type\" string");
    }
    if (EventType.of(type) == EventType.OTHER) {
      return CheckoutEvent.other(Untrusted.id(eventId), Untrusted.id(type));
    }
    if (eventId.isBlank()) {
      return malformed("the Checkout event's \"id\" is blank");
    }
    JsonElement data = root.get("data");
    JsonElement object =
        data != null && data.isJsonObject() ? data.getAsJsonObject().get("object") : null;
    if (object == null || !object.isJsonObject()) {
      return malformed("a Checkout event's data.object must be the session, a JSON object");
    }
    JsonObject session = object.getAsJsonObject();
    try {
      String paymentStatus = MetadataMapping.string(session, "payment_status");
      if (paymentStatus == null) {
        throw new IllegalArgumentException("the session has no payment_status");
      }
      OrderSnapshot snapshot = mapping.snapshot(session);
      return CheckoutEvent.of(Untrusted.id(eventId), type, paymentStatus, snapshot);
    } catch (RuntimeException e) {
      String sessionId = Untrusted.id(text(session.get("id")));
      String why = Untrusted.text(e.getMessage(), Untrusted.REASON_LENGTH);
      if (e instanceof IllegalArgumentException) {
        LOG.error(
            "webhook: a signed Checkout event for session {} cannot be mapped to an order ({});"
                + " answering 500 so Stripe retries: fix the mapping and the retry fulfils it",
            sessionId,
            why);
      } else {
        LOG.error("webhook: the session mapping failed on session {}", sessionId, e);
      }
      return new Answer(
          500,
          error(
              "unmappable_session",
              "session " + sessionId + " cannot be mapped to an order: " + why));
    }
  }

  private Answer handle(CheckoutEvent event) {
    FulfilmentOutcome outcome;
    try {
      outcome = handler.handle(event);
    } catch (RuntimeException e) {
      LOG.error("webhook: the handler failed on event {}", event.eventId(), e);
      return new Answer(
          500,
          error("internal", "the handler failed on this delivery (logged); Stripe will retry"));
    }
    JsonObject json = new JsonObject();
    json.addProperty("outcome", outcome.kind().name().toLowerCase(Locale.ROOT));
    json.addProperty("reason", outcome.reason());
    return new Answer(outcome.httpStatus(), json.toString());
  }

  /** A JSON string member, or {@code null} if absent or not a string. */
  private static String text(JsonElement element) {
    return element != null && element.isJsonPrimitive() && element.getAsJsonPrimitive().isString()
        ? element.getAsString()
        : null;
  }

  private static Answer malformed(String reason) {
    return new Answer(400, error("malformed_json", reason));
  }

  private String tooLarge(String what) {
    return error(
        "body_too_large", "a webhook body is at most " + maxBodyBytes + " bytes (" + what + ")");
  }

  /** From now on new deliveries are answered 503; those in flight go on. */
  void drain() {
    draining = true;
  }

  /** Deliveries whose body has arrived and which are not yet answered. */
  int inFlight() {
    return inFlight.get();
  }

  /** Stops the delivery pool and the health thread (after draining). */
  void release() {
    deliveries.shutdownNow();
    health.close();
  }

  private boolean answer(
      Response response, Callback callback, int status, String body, boolean webhook) {
    if (webhook) {
      Counter.builder("fencekit.webhook.answers")
          .description("Answers to POST /webhook by HTTP status")
          .tag("status", String.valueOf(status))
          .register(registry)
          .increment();
      if (status >= 400 && body.startsWith("{\"error\":\"")) {
        Counter.builder("fencekit.webhook.refusals")
            .description("Error answers to POST /webhook by error (overloaded, bad_signature, ...)")
            .tag("error", body.substring(10, body.indexOf('"', 10)))
            .register(registry)
            .increment();
      }
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
