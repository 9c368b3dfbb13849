package org.fencekit.webhook;

import com.google.gson.JsonObject;
import com.stripe.StripeClient;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.fencekit.fulfilment.CheckoutEvent;
import org.fencekit.fulfilment.FulfilmentHandler;
import org.fencekit.fulfilment.FulfilmentOutcome;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the webhook and the success page answer, whatever HTTP server carries them: a request goes
 * in as its parts (the {@code Stripe-Signature} header and the body's bytes, the {@code
 * session_id}), an {@link Answer} comes out (a status, one line of JSON, the headers to send).
 * fencekit's Jetty server and the Spring Boot starter's controller are thin adapters over it, both
 * built with {@link #builder()}, so both answer alike, byte for byte.
 *
 * <p>A delivery: the signature, the JSON and the mapping are read on the caller's thread by the
 * {@link EventReader} (any refusal is answered at once, without a delivery slot); then the {@link
 * FulfilmentHandler} handles it in a delivery slot (a thread of the core's own pool); one that
 * waits for a slot longer than the queue time is answered 503 {@code overloaded}. Every webhook
 * answer is counted in the application's registry, if it has one ({@code fencekit.webhook.answers}
 * by status, {@code fencekit.webhook.refusals} by error).
 */
public final class WebhookCore implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(WebhookCore.class);

  /** The tolerance of a signature's timestamp, as Stripe's libraries use: 300 s. */
  public static final Duration DEFAULT_TOLERANCE = Duration.ofSeconds(300);

  /** The largest webhook body accepted: 1 MiB. */
  public static final int MAX_BODY_BYTES = 1 << 20;

  /** How long a delivery's whole body may take to arrive after its headers: 10 s. */
  public static final Duration DEFAULT_BODY_TIMEOUT = Duration.ofSeconds(10);

  /** Deliveries (and landings) handled at once: 24. */
  public static final int DEFAULT_SLOTS = 24;

  /** How long a delivery may wait for a slot before it is answered 503: 5 s. */
  public static final Duration DEFAULT_QUEUE_TIME = Duration.ofSeconds(5);

  /** Retry-After, in seconds, of a 503. */
  public static final String RETRY_AFTER = "30";

  /**
   * After a refusal answered before the body was whole (413, 503), what the client still sends is
   * read and discarded, up to this many times the limit, before the connection closes (so the
   * client is not still sending when it closes, which would reset the connection under the answer).
   */
  public static final int DRAIN_FACTOR = 4;

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
      SettingChecks.within("maxBodyBytes", maxBodyBytes, 1, Integer.MAX_VALUE);
      SettingChecks.positive("bodyTimeout", bodyTimeout);
      SettingChecks.within("slots", slots, 1, 1_000);
      SettingChecks.positive("queueTime", queueTime);
    }
  }

  private final FulfilmentHandler handler;
  private final EventReader reader;
  private final SuccessPage successPage;
  private final String successPageSetting;
  private final AnswerCounter counter;
  private final Limits limits;
  private final DeliverySlots slots;

  private WebhookCore(Builder builder, Limits limits, StripeSignature signature) {
    this.handler = builder.handler;
    this.reader = new EventReader(signature, builder.mapping, builder.clock);
    this.successPage =
        builder.stripe == null ? null : new SuccessPage(builder.stripe, builder.mapping, handler);
    this.successPageSetting = builder.settingNames.apiKey();
    this.counter = new AnswerCounter(builder.registry);
    this.limits = limits;
    this.slots = new DeliverySlots(limits.slots(), limits.queueTime());
  }

  /** A builder; {@link Builder#handler} and {@link Builder#secrets} are required. */
  public static Builder builder() {
    return new Builder();
  }

  /** The limits. */
  public Limits limits() {
    return limits;
  }

  /** The reader a delivery's header and body go through. */
  public EventReader reader() {
    return reader;
  }

  /**
   * What to answer a webhook delivery before a byte of its body is read: 503 {@code shutting_down}
   * while draining, 413 if its {@code Content-Length} is over the limit; {@code null} to read it.
   *
   * @param declaredLength the {@code Content-Length}, or -1 if none
   */
  public Answer beforeBody(long declaredLength) {
    if (slots.draining()) {
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
    if (slots.draining()) {
      return CompletableFuture.completedFuture(shuttingDown(true));
    }
    EventReader.Result read = reader.read(signatureHeader, body);
    if (read instanceof EventReader.Accepted accepted) {
      return dispatch(true, () -> handle(accepted.event()));
    }
    if (read instanceof EventReader.Refused refused) {
      return CompletableFuture.completedFuture(counter.count(refused.answer()));
    }
    throw new IllegalStateException("EventReader.Result is sealed, yet " + read + " came back");
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
          Answer.error(
              404,
              "success_page_off",
              "this server has no Stripe API key: set %s to serve the success page"
                  .formatted(successPageSetting)));
    }
    if (slots.draining()) {
      return CompletableFuture.completedFuture(shuttingDown(false));
    }
    return dispatch(
        false,
        () -> {
          SuccessPage.Result shown = successPage.fulfil(sessionId);
          return Answer.of(shown.state().httpStatus(), shown.json());
        });
  }

  /**
   * 405 with {@code Allow}; counted as a webhook answer if {@code webhook}.
   *
   * @param allowed the method the route takes
   */
  public Answer methodNotAllowed(String allowed, boolean webhook) {
    return counted(
        webhook, Answer.error(405, "method_not_allowed", "use " + allowed).with("Allow", allowed));
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
    return counter.count(Answer.error(status, error, reason).with("Connection", "close"));
  }

  /** 503 {@code shutting_down} with Retry-After; counted as a webhook answer if {@code webhook}. */
  public Answer shuttingDown(boolean webhook) {
    return counted(
        webhook,
        Answer.error(
                503, "shutting_down", "this server is shutting down; try again after Retry-After")
            .with("Retry-After", RETRY_AFTER));
  }

  /**
   * What the HTTP server answers itself, before or instead of a route (a request it cannot parse,
   * headers too large, a failure of ours): one line of JSON with a fixed reason for {@code status},
   * never the server's message or an exception's text; counted with the webhook's answers (such a
   * request may have been a delivery, and its client got this answer).
   */
  public Answer protocolError(int status) {
    String badRequest = "bad_request";
    return counter.count(
        switch (status) {
          case 404 -> Answer.error(status, "not_found", "no such route; Stripe posts to /webhook");
          case 408 -> Answer.error(status, "body_timeout", "the request did not arrive in time");
          case 413 -> Answer.error(status, "body_too_large", "the request is too large");
          case 414 -> Answer.error(status, badRequest, "the request line is too long");
          case 431 -> Answer.error(status, badRequest, "the request's headers are too large");
          case 501 -> Answer.error(status, badRequest, "this server does not implement that");
          case 505 ->
              Answer.error(status, badRequest, "this server speaks HTTP/1.1 and HTTP/1.0 only");
          default ->
              status >= 500
                  ? Answer.error(
                      status,
                      "internal",
                      "the server failed on this request (logged); Stripe will retry")
                  : Answer.error(status, badRequest, "the request is not well-formed HTTP/1.1");
        });
  }

  /** Runs {@code work} in a delivery slot, its answer and the slot's refusals counted. */
  private CompletableFuture<Answer> dispatch(boolean webhook, Supplier<Answer> work) {
    return slots.run(
        () -> counted(webhook, work.get()), () -> overloaded(webhook), () -> shuttingDown(webhook));
  }

  private Answer overloaded(boolean webhook) {
    return counted(
        webhook,
        Answer.error(
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
   * The handler's outcome as an answer: its own HTTP status, and {@code {"outcome":kind,
   * "reason":...}}, whatever outcomes the handler has.
   */
  private Answer handle(CheckoutEvent event) {
    FulfilmentOutcome outcome;
    try {
      outcome = handler.handle(event);
    } catch (RuntimeException e) {
      LOG.error("webhook: the handler failed on event {}", event.eventId(), e);
      return Answer.error(
          500, "internal", "the handler failed on this delivery (logged); Stripe will retry");
    }
    JsonObject json = new JsonObject();
    json.addProperty("outcome", outcome.kind().name().toLowerCase(Locale.ROOT));
    json.addProperty("reason", outcome.reason());
    return Answer.of(outcome.httpStatus(), json.toString());
  }

  /** {@code answer}, counted if it answers the webhook. */
  private Answer counted(boolean webhook, Answer answer) {
    return webhook ? counter.count(answer) : answer;
  }

  /** From now on new deliveries and landings are answered 503; those in flight go on. */
  public void drain() {
    slots.drain();
  }

  /** Whether {@link #drain()} was called. */
  public boolean draining() {
    return slots.draining();
  }

  /** Deliveries and landings in a slot or waiting for one, not yet answered. */
  public int inFlight() {
    return slots.inFlight();
  }

  /**
   * Waits until no delivery or landing is in flight, up to {@code timeout} (after {@link #drain()},
   * for a graceful stop).
   *
   * @return whether none is in flight
   */
  public boolean awaitIdle(Duration timeout) {
    return slots.awaitIdle(timeout);
  }

  /**
   * Drains: new deliveries are answered 503 at once while those in flight finish, for up to {@code
   * timeout}; then logs how many Stripe will have to retry, if any.
   *
   * @return whether every delivery in flight finished
   */
  public boolean drainAndAwait(Duration timeout) {
    drain();
    boolean idle = awaitIdle(timeout);
    if (!idle) {
      LOG.warn(
          "stopping with {} deliveries still in flight after {}; Stripe will retry them",
          inFlight(),
          timeout);
    }
    return idle;
  }

  /** Stops the delivery slots (after draining); the handler is its owner's to close. */
  @Override
  public void close() {
    slots.close();
  }

  /**
   * Builds a {@link WebhookCore}; each setting has its default here, and {@link #build()} names the
   * first bad one.
   */
  public static final class Builder {

    private FulfilmentHandler handler;
    private List<String> secrets = List.of();
    private Duration tolerance = DEFAULT_TOLERANCE;
    private Clock clock = Clock.systemUTC();
    private SessionMapping mapping = new MetadataMapping();
    private StripeClient stripe;
    private SettingNames settingNames = SettingNames.SERVER;
    private MeterRegistry registry;
    private int maxBodyBytes = MAX_BODY_BYTES;
    private Duration bodyTimeout = DEFAULT_BODY_TIMEOUT;
    private int slots = DEFAULT_SLOTS;
    private Duration queueTime = DEFAULT_QUEUE_TIME;

    private Builder() {}

    /** The handler deliveries and landings run; required. */
    public Builder handler(FulfilmentHandler handler) {
      this.handler = Objects.requireNonNull(handler, "handler");
      return this;
    }

    /**
     * The webhook signing secrets ({@code whsec_...}), several while rotating; at least one
     * required ({@link StripeSignature#secrets} says how they are read).
     */
    public Builder secrets(Collection<String> secrets) {
      this.secrets = new ArrayList<>(Objects.requireNonNull(secrets, "secrets"));
      return this;
    }

    /** How far a signature's timestamp may lie from the clock; {@link #DEFAULT_TOLERANCE}. */
    public Builder tolerance(Duration tolerance) {
      this.tolerance = Objects.requireNonNull(tolerance, "tolerance");
      return this;
    }

    /** The clock signatures are checked against; the system clock by default. */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /** How a Checkout session becomes an order; {@link MetadataMapping} by default. */
    public Builder mapping(SessionMapping mapping) {
      this.mapping = Objects.requireNonNull(mapping, "mapping");
      return this;
    }

    /**
     * Serves the success page with this client ({@link SuccessPage#client}); without one its route
     * answers 404 {@code success_page_off}.
     */
    public Builder successPage(StripeClient stripe) {
      this.stripe = Objects.requireNonNull(stripe, "stripe");
      return this;
    }

    /** The names answers give the settings; {@link SettingNames#SERVER} by default. */
    public Builder settingNames(SettingNames settingNames) {
      this.settingNames = Objects.requireNonNull(settingNames, "settingNames");
      return this;
    }

    /** Where the webhook's answers are counted; by default nowhere. */
    public Builder meters(MeterRegistry registry) {
      this.registry = Objects.requireNonNull(registry, "registry");
      return this;
    }

    /** The largest webhook body accepted; {@link #MAX_BODY_BYTES} by default. */
    public Builder maxBodyBytes(int maxBodyBytes) {
      this.maxBodyBytes = maxBodyBytes;
      return this;
    }

    /** How long a body may take to arrive; {@link #DEFAULT_BODY_TIMEOUT} by default. */
    public Builder bodyTimeout(Duration bodyTimeout) {
      this.bodyTimeout = Objects.requireNonNull(bodyTimeout, "bodyTimeout");
      return this;
    }

    /** Deliveries handled at once, 1 to 1000; {@link #DEFAULT_SLOTS} by default. */
    public Builder slots(int slots) {
      this.slots = slots;
      return this;
    }

    /** How long a delivery may wait for a slot; {@link #DEFAULT_QUEUE_TIME} by default. */
    public Builder queueTime(Duration queueTime) {
      this.queueTime = Objects.requireNonNull(queueTime, "queueTime");
      return this;
    }

    /**
     * The core; {@link WebhookCore#close()} stops its threads.
     *
     * @throws IllegalArgumentException naming the first bad setting
     * @throws NullPointerException if the handler is missing
     */
    public WebhookCore build() {
      Objects.requireNonNull(handler, "handler");
      StripeSignature signature = new StripeSignature(settingNames.secret(), secrets, tolerance);
      Limits limits = new Limits(maxBodyBytes, bodyTimeout, slots, queueTime);
      return new WebhookCore(this, limits, signature);
    }
  }
}
