package org.fencekit.server;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParseException;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.fencekit.fulfilment.CheckoutEvent;
import org.fencekit.fulfilment.EventType;
import org.fencekit.fulfilment.FulfilmentHandler;
import org.fencekit.fulfilment.FulfilmentOutcome;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the webhook and the success page answer, whatever HTTP server carries them: a request goes
 * in as its parts (the {@code Stripe-Signature} header and the body's bytes, the {@code
 * session_id}), an {@link Answer} comes out (a status, one line of JSON, the headers to send).
 * fencekit's Jetty server and the Spring Boot starter's controller are thin adapters over it, so
 * both answer alike, byte for byte.
 *
 * <p>A delivery: the signature, the JSON and the mapping are checked on the caller's thread (any
 * refusal is answered at once, without a delivery slot); then the {@link FulfilmentHandler} handles
 * it in a delivery slot (a thread of the core's own pool); one that waits for a slot longer than
 * the queue time is answered 503 {@code overloaded}. Every webhook answer is counted in the
 * registry ({@code fencekit.webhook.answers} by status, {@code fencekit.webhook.refusals} by
 * error).
 */
public final class WebhookCore implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(WebhookCore.class);

  /** Retry-After, in seconds, of a 503. */
  public static final String RETRY_AFTER = "30";

  /**
   * After a refusal answered before the body was whole (413, 503), what the client still sends is
   * read and discarded, up to this many times the limit, before the connection closes (so the
   * client is not still sending when it closes, which would reset the connection under the answer).
   */
  public static final int DRAIN_FACTOR = 4;

  /**
   * An answer: its status, its one line of JSON (without the line end) and the headers to send
   * besides {@code Content-Type: application/json}.
   *
   * @param status the HTTP status
   * @param body one line of JSON
   * @param headers header names and values ({@code Retry-After}, {@code Allow}, {@code Connection})
   */
  public record Answer(int status, String body, Map<String, String> headers) {

    /** Copies the headers. */
    public Answer {
      Objects.requireNonNull(body, "body");
      headers = Map.copyOf(headers);
    }

    /** An answer with no extra header. */
    public Answer(int status, String body) {
      this(status, body, Map.of());
    }

    /** This answer with one more header. */
    public Answer with(String name, String value) {
      Map<String, String> more = new LinkedHashMap<>(headers);
      more.put(name, value);
      return new Answer(status, body, more);
    }
  }

  /**
   * The limits.
   *
   * @param maxBodyBytes the largest webhook body accepted
   * @param bodyTimeout how long a body may take to arrive (the adapter enforces it)
   * @param slots deliveries handled at once
   * @param queueTime how long a delivery may wait for a slot before it is answered 503
   */
  public record Limits(int maxBodyBytes, Duration bodyTimeout, int slots, Duration queueTime) {

    /** Checks each limit, naming the bad one. */
    public Limits {
      Objects.requireNonNull(bodyTimeout, "bodyTimeout");
      Objects.requireNonNull(queueTime, "queueTime");
      if (maxBodyBytes < 1) {
        throw new IllegalArgumentException("maxBodyBytes must be positive, got " + maxBodyBytes);
      }
      within("slots", slots, 1, 1_000);
      positive("queueTime", queueTime);
    }
  }

  /**
   * The names of the settings an answer tells the operator to fix, as the application calls them.
   *
   * @param secret the webhook signing secret's ({@code STRIPE_WEBHOOK_SECRET} for the server)
   * @param apiKey the Stripe API key's, which turns the success page on ({@code STRIPE_API_KEY})
   */
  public record Settings(String secret, String apiKey) {

    /** The server's: its environment variables. */
    public static final Settings SERVER = new Settings("STRIPE_WEBHOOK_SECRET", "STRIPE_API_KEY");

    /** Checks both are present. */
    public Settings {
      Objects.requireNonNull(secret, "secret");
      Objects.requireNonNull(apiKey, "apiKey");
    }
  }

  private final FulfilmentHandler handler;
  private final StripeSignature signature;
  private final Clock clock;
  private final SessionMapping mapping;
  private final SuccessPage successPage;
  private final String successPageSetting;
  private final MeterRegistry registry;
  private final Limits limits;
  private final ThreadPoolExecutor deliveries;
  private final ScheduledExecutorService timer;
  private final AtomicInteger inFlight = new AtomicInteger();
  private volatile boolean draining;

  /**
   * A core; {@link #close()} stops its threads.
   *
   * @param handler the handler deliveries and landings run
   * @param secrets the webhook signing secrets ({@code whsec_...}), several while rotating
   * @param tolerance how far a signature's timestamp may lie from the clock
   * @param clock the clock signatures are checked against
   * @param mapping how a Checkout session becomes an order
   * @param successPage the success page, or {@code null} to answer its route 404
   * @param settings the names of the settings answers name: the signing secret's (when no secret
   *     matches) and the API key's (when the success page is off)
   * @param registry where the webhook's answers are counted
   * @param limits the limits
   */
  public WebhookCore(
      FulfilmentHandler handler,
      List<String> secrets,
      Duration tolerance,
      Clock clock,
      SessionMapping mapping,
      SuccessPage successPage,
      Settings settings,
      MeterRegistry registry,
      Limits limits) {
    this.handler = Objects.requireNonNull(handler, "handler");
    if (secrets == null || secrets.isEmpty() || secrets.stream().anyMatch(s -> s.isBlank())) {
      throw new IllegalArgumentException(
          "secrets: at least one webhook signing secret (whsec_...), none blank, is required;"
              + " without it anyone could post fake payments");
    }
    positive("tolerance", tolerance);
    Objects.requireNonNull(settings, "settings");
    this.signature = new StripeSignature(secrets, tolerance.toSeconds(), settings.secret());
    this.clock = Objects.requireNonNull(clock, "clock");
    this.mapping = Objects.requireNonNull(mapping, "mapping");
    this.successPage = successPage;
    this.successPageSetting = settings.apiKey();
    this.registry = Objects.requireNonNull(registry, "registry");
    this.limits = Objects.requireNonNull(limits, "limits");
    AtomicInteger threadNumber = new AtomicInteger();
    this.deliveries =
        new ThreadPoolExecutor(
            limits.slots(),
            limits.slots(),
            60,
            TimeUnit.SECONDS,
            new LinkedBlockingQueue<>(1024),
            runnable -> daemon(runnable, "fencekit-delivery-" + threadNumber.incrementAndGet()));
    this.timer =
        Executors.newSingleThreadScheduledExecutor(runnable -> daemon(runnable, "fencekit-queue"));
  }

  /** A daemon thread named {@code name}: none of the server's threads keeps the JVM up. */
  static Thread daemon(Runnable runnable, String name) {
    Thread thread = new Thread(runnable, name);
    thread.setDaemon(true);
    return thread;
  }

  /** Checks the setting {@code name} is present and more than zero, naming it if not. */
  static void positive(String name, Duration value) {
    Objects.requireNonNull(value, name);
    if (value.isNegative() || value.isZero()) {
      throw new IllegalArgumentException(name + " must be positive, got " + value);
    }
  }

  /** Checks the setting {@code name} is {@code min} to {@code max}, naming it if not. */
  static void within(String name, int value, int min, int max) {
    if (value < min || value > max) {
      throw new IllegalArgumentException(
          name + " must be " + min + " to " + max + ", got " + value);
    }
  }

  /** The limits. */
  public Limits limits() {
    return limits;
  }

  /**
   * What to answer a webhook delivery before a byte of its body is read: 503 {@code shutting_down}
   * while draining, 413 if its {@code Content-Length} is over the limit; {@code null} to read it.
   *
   * @param declaredLength the {@code Content-Length}, or -1 if none
   */
  public Answer beforeBody(long declaredLength) {
    if (draining) {
      return shuttingDown(true);
    }
    return declaredLength > limits.maxBodyBytes()
        ? tooLarge(declaredLength + " bytes declared")
        : null;
  }

  /**
   * The delivery, answered: refused at once if its signature, JSON or mapping is wrong; else
   * handled in a delivery slot.
   *
   * @param signatureHeader the {@code Stripe-Signature} header, or {@code null}
   * @param body the whole body, at most the limit
   */
  public CompletableFuture<Answer> webhook(String signatureHeader, byte[] body) {
    if (draining) {
      return CompletableFuture.completedFuture(shuttingDown(true));
    }
    Object checked = check(signatureHeader, body);
    if (checked instanceof Answer refused) {
      return CompletableFuture.completedFuture(count(refused));
    }
    return dispatch(true, () -> handle((CheckoutEvent) checked));
  }

  /**
   * The success page's answer for the {@code session_id} the customer landed with (see {@link
   * SuccessPage}), run in a delivery slot.
   *
   * @param sessionId the query's {@code session_id}, or {@code null}
   */
  public CompletableFuture<Answer> successPage(String sessionId) {
    if (successPage == null) {
      return CompletableFuture.completedFuture(
          answer(
              404,
              "success_page_off",
              "this server has no Stripe API key: set %s to serve the success page"
                  .formatted(successPageSetting)));
    }
    if (draining) {
      return CompletableFuture.completedFuture(shuttingDown(false));
    }
    return dispatch(
        false,
        () -> {
          SuccessPage.Result shown = successPage.fulfil(sessionId);
          return new Answer(shown.state().httpStatus(), shown.json());
        });
  }

  /**
   * 405 with {@code Allow}; counted as a webhook answer if {@code webhook}.
   *
   * @param allowed the method the route takes
   */
  public Answer methodNotAllowed(String allowed, boolean webhook) {
    return counted(
        webhook, answer(405, "method_not_allowed", "use " + allowed).with("Allow", allowed));
  }

  /** 413 {@code body_too_large} (counted, connection closed); {@code what} says by how much. */
  public Answer tooLarge(String what) {
    return refusal(
        413,
        "body_too_large",
        "a webhook body is at most " + limits.maxBodyBytes() + " bytes (" + what + ")");
  }

  /**
   * 408 {@code body_timeout} (counted, connection closed): the body did not arrive whole within the
   * body timeout of its headers.
   */
  public Answer bodyTimedOut() {
    return refusal(
        408,
        "body_timeout",
        "the body did not arrive within " + limits.bodyTimeout().toMillis() + " ms of its headers");
  }

  /**
   * 408 {@code body_timeout} (counted, connection closed): the body stopped arriving, the
   * connection idle too long.
   */
  public Answer bodyStalled() {
    return refusal(
        408, "body_timeout", "the body stopped arriving (the connection was idle too long)");
  }

  /** 400 {@code unreadable_body} (counted, connection closed): its framing is broken. */
  public Answer unreadableBody() {
    return refusal(400, "unreadable_body", "the body could not be read (broken framing)");
  }

  /** A webhook delivery the adapter refuses itself: counted, and its connection closed. */
  private Answer refusal(int status, String error, String reason) {
    return count(answer(status, error, reason).with("Connection", "close"));
  }

  /** 503 {@code shutting_down} with Retry-After; counted as a webhook answer if {@code webhook}. */
  public Answer shuttingDown(boolean webhook) {
    return counted(
        webhook,
        answer(503, "shutting_down", "this server is shutting down; try again after Retry-After")
            .with("Retry-After", RETRY_AFTER));
  }

  /** Whether {@link #drain()} was called. */
  public boolean draining() {
    return draining;
  }

  /**
   * Runs {@code work} on the delivery pool; answers 503 overloaded if no slot frees up within the
   * queue time, and 503 shutting_down if draining began meanwhile.
   */
  private CompletableFuture<Answer> dispatch(boolean webhook, Supplier<Answer> work) {
    CompletableFuture<Answer> answered = new CompletableFuture<>();
    AtomicBoolean taken = new AtomicBoolean();
    inFlight.incrementAndGet();
    Runnable delivery =
        () -> {
          if (!taken.compareAndSet(false, true)) {
            return;
          }
          try {
            answered.complete(draining ? shuttingDown(webhook) : counted(webhook, work.get()));
          } catch (RuntimeException | Error e) {
            answered.completeExceptionally(e);
            throw e;
          } finally {
            inFlight.decrementAndGet();
          }
        };
    try {
      deliveries.execute(delivery);
    } catch (RejectedExecutionException e) {
      abandon(taken, answered, () -> overloaded(webhook));
      return answered;
    }
    try {
      timer.schedule(
          () -> abandon(taken, answered, () -> overloaded(webhook)),
          limits.queueTime().toMillis(),
          TimeUnit.MILLISECONDS);
    } catch (RejectedExecutionException e) {
      // closed meanwhile: the delivery pool is stopped too, so the work never runs
      abandon(taken, answered, () -> shuttingDown(webhook));
    }
    return answered;
  }

  /** Answers without the work, unless a slot took it first. */
  private void abandon(
      AtomicBoolean taken, CompletableFuture<Answer> answered, Supplier<Answer> answer) {
    if (taken.compareAndSet(false, true)) {
      inFlight.decrementAndGet();
      answered.complete(answer.get());
    }
  }

  private Answer overloaded(boolean webhook) {
    return counted(
        webhook,
        answer(
                503,
                "overloaded",
                limits.slots()
                    + " requests are being handled and this one waited "
                    + limits.queueTime().toMillis()
                    + " ms for a slot; "
                    + (webhook ? "Stripe will retry" : "try again after Retry-After"))
            .with("Retry-After", RETRY_AFTER));
  }

  /**
   * The delivery's event, or the {@link Answer} refusing it: signature, then JSON, then the event's
   * fields, then the mapping.
   */
  Object check(String header, byte[] body) {
    if (header == null || header.isBlank()) {
      return answer(
          400, "missing_signature", "no Stripe-Signature header: only Stripe may post here");
    }
    StripeSignature.Refusal refusal =
        signature.check(header, body, clock.instant().getEpochSecond());
    if (refusal != null) {
      return answer(400, refusal.error(), refusal.reason());
    }
    JsonObject root;
    try {
      // a decoder reports malformed input, where new String(...) would replace it
      String payload = StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(body)).toString();
      JsonElement parsed = StrictJson.parse(payload);
      if (!parsed.isJsonObject()) {
        return malformed("the signed body is not one JSON object (an event)");
      }
      root = parsed.getAsJsonObject();
    } catch (CharacterCodingException e) {
      return malformed("the signed body is not UTF-8");
    } catch (JsonParseException e) {
      return malformed("the signed body is not valid JSON");
    }
    String eventId = StrictJson.string(root.get("id"));
    String type = StrictJson.string(root.get("type"));
    if (eventId == null || type == null) {
      return malformed("the event has no \"id\" or no \"type\" string");
    }
    String notV1 = notV1(root, eventId);
    if (notV1 != null) {
      return answer(400, "unsupported_event", notV1);
    }
    if (EventType.of(type) == EventType.OTHER) {
      return CheckoutEvent.other(eventId, Untrusted.id(type));
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
      return CheckoutEvent.of(
          eventId, type, Fields.paymentStatus(paymentStatus), mapping.snapshot(session));
    } catch (RuntimeException e) {
      String sessionId = Fields.quote(StrictJson.string(session.get("id")), Fields.MAX_ID_LENGTH);
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
      return answer(
          500,
          "unmappable_session",
          "session " + sessionId + " cannot be mapped to an order: " + why);
    }
  }

  /**
   * Why {@code root} is not a Stripe v1 event this endpoint understands, or {@code null} if it is
   * one: {@code "object":"event"}, {@code created} a whole number of seconds (1 to 12 ASCII
   * digits), an id within {@link Fields#id}'s bounds. A v2 event ({@code "object":"v2.core.event"})
   * is refused here, whatever its type: its shape is another.
   */
  private static String notV1(JsonObject root, String eventId) {
    String object = StrictJson.string(root.get("object"));
    if (!"event".equals(object)) {
      return "the signed body is not a Stripe v1 event: its \"object\" is "
          + (object == null ? "not a string" : "'" + Untrusted.prefix(object) + "'")
          + ", not 'event' (this endpoint takes v1 events, as a webhook endpoint or a v1"
          + " snapshot destination sends them; not v2 thin events)";
    }
    JsonElement created = root.get("created");
    if (created == null
        || !created.isJsonPrimitive()
        || !created.getAsJsonPrimitive().isNumber()
        || !Fields.digits(created.getAsString(), 12)) {
      return "the signed event's \"created\" is not a whole number of seconds (1 to 12 digits),"
          + " as a Stripe v1 event's is";
    }
    try {
      Fields.id("the event's \"id\"", eventId);
    } catch (IllegalArgumentException e) {
      return e.getMessage();
    }
    return null;
  }

  private Answer handle(CheckoutEvent event) {
    FulfilmentOutcome outcome;
    try {
      outcome = handler.handle(event);
    } catch (RuntimeException e) {
      LOG.error("webhook: the handler failed on event {}", event.eventId(), e);
      return answer(
          500, "internal", "the handler failed on this delivery (logged); Stripe will retry");
    }
    JsonObject json = new JsonObject();
    json.addProperty("outcome", outcome.kind().name().toLowerCase(Locale.ROOT));
    json.addProperty("reason", outcome.reason());
    return new Answer(outcome.httpStatus(), json.toString());
  }

  private static Answer malformed(String reason) {
    return answer(400, "malformed_json", reason);
  }

  /** {@code answer}, counted if it answers the webhook. */
  private Answer counted(boolean webhook, Answer answer) {
    return webhook ? count(answer) : answer;
  }

  /**
   * Counts a webhook answer: {@code fencekit.webhook.answers} by status and, for an error, {@code
   * fencekit.webhook.refusals} by error.
   */
  Answer count(Answer answer) {
    Counter.builder("fencekit.webhook.answers")
        .description("Answers to the webhook by HTTP status")
        .tag("status", String.valueOf(answer.status()))
        .register(registry)
        .increment();
    String body = answer.body();
    if (answer.status() >= 400 && body.startsWith("{\"error\":\"")) {
      Counter.builder("fencekit.webhook.refusals")
          .description("Error answers to the webhook by error (overloaded, bad_signature, ...)")
          .tag("error", body.substring(10, body.indexOf('"', 10)))
          .register(registry)
          .increment();
    }
    return answer;
  }

  /** From now on new deliveries and landings are answered 503; those in flight go on. */
  public void drain() {
    draining = true;
  }

  /** Deliveries and landings in a slot or waiting for one, not yet answered. */
  public int inFlight() {
    return inFlight.get();
  }

  /**
   * Waits until no delivery or landing is in flight, up to {@code timeout} (after {@link #drain()},
   * for a graceful stop).
   *
   * @return whether none is in flight
   */
  public boolean awaitIdle(Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (inFlight.get() > 0 && System.nanoTime() < deadline) {
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    return inFlight.get() == 0;
  }

  /** Stops the delivery pool and the queue timer (after draining). */
  @Override
  public void close() {
    draining = true;
    deliveries.shutdownNow();
    timer.shutdownNow();
  }

  /**
   * What the HTTP server answers itself, before or instead of a route (a request it cannot parse,
   * headers too large, a failure of ours): one line of JSON with a fixed reason for {@code status},
   * never the server's message or an exception's text; counted with the webhook's answers (such a
   * request may have been a delivery, and its client got this answer).
   */
  public Answer protocolError(int status) {
    String badRequest = "bad_request";
    return count(
        switch (status) {
          case 404 -> answer(status, "not_found", "no such route; Stripe posts to /webhook");
          case 408 -> answer(status, "body_timeout", "the request did not arrive in time");
          case 413 -> answer(status, "body_too_large", "the request is too large");
          case 414 -> answer(status, badRequest, "the request line is too long");
          case 431 -> answer(status, badRequest, "the request's headers are too large");
          case 501 -> answer(status, badRequest, "this server does not implement that");
          case 505 -> answer(status, badRequest, "this server speaks HTTP/1.1 and HTTP/1.0 only");
          default ->
              status >= 500
                  ? answer(
                      status,
                      "internal",
                      "the server failed on this request (logged); Stripe will retry")
                  : answer(status, badRequest, "the request is not well-formed HTTP/1.1");
        });
  }

  /** 500 {@code internal}: what an adapter answers when the core failed to make an answer. */
  public static Answer failed() {
    return answer(500, "internal", "the request failed (logged); try again");
  }

  /** An answer with a one-line JSON error. */
  static Answer answer(int status, String error, String reason) {
    return new Answer(status, error(error, reason));
  }

  /** A one-line JSON error. */
  public static String error(String error, String reason) {
    JsonObject json = new JsonObject();
    json.addProperty("error", error);
    json.addProperty("reason", reason);
    return json.toString();
  }
}
