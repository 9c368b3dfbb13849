package org.fencekit.webhook;

import com.google.gson.JsonObject;
import com.stripe.StripeClient;
import com.stripe.exception.ApiConnectionException;
import com.stripe.exception.AuthenticationException;
import com.stripe.exception.InvalidRequestException;
import com.stripe.exception.StripeException;
import com.stripe.model.checkout.Session;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.Locale;
import java.util.Objects;
import java.util.regex.Pattern;
import org.fencekit.fulfilment.CheckoutEvent;
import org.fencekit.fulfilment.FulfilmentHandler;
import org.fencekit.fulfilment.FulfilmentOutcome;
import org.fencekit.store.Item;
import org.fencekit.store.OrderRecord;
import org.fencekit.store.OrderStatus;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stripe's second entry point: the customer lands on the success page ({@code
 * ?session_id={CHECKOUT_SESSION_ID}}) and the page's backend calls {@link #fulfil}. It retrieves
 * the Checkout session from Stripe with stripe-java, maps it with the same {@link SessionMapping}
 * as the webhook and runs the same {@link FulfilmentHandler}, so whichever of the landing and the
 * webhook comes first claims the order and buys once, however many times either comes.
 *
 * <p>It needs no signature: it trusts nothing the browser sent but the session id, and reads the
 * session (paid or not, its order) from Stripe itself. The answer is what the page should show,
 * never the provider's error text.
 */
public final class SuccessPage {

  /** The route the server serves it on: {@code GET /checkout/success?session_id=cs_...}. */
  public static final String PATH = "/checkout/success";

  private static final Logger LOG = LoggerFactory.getLogger(SuccessPage.class);
  private static final Pattern SESSION_ID = Pattern.compile("cs_(test|live)_[A-Za-z0-9]{1,250}");
  private static final String EVENT_ID = "success-page";

  /** What the page shows. */
  public enum State {
    /** The order is fulfilled: show the item. */
    FULFILLED(200),
    /** Another attempt is fulfilling it right now: show "processing" and ask again shortly. */
    PROCESSING(202),
    /**
     * The payment is not collected yet (a delayed payment method): nothing is bought until it is.
     */
    UNPAID(200),
    /**
     * The purchase failed (Stripe's retries of the webhook try again), or the session's order
     * differs from the one stored under its id (nothing bought; an operator must look).
     */
    FAILED(200),
    /** fencekit could not decide now (the store or Stripe did not answer): ask again shortly. */
    UNAVAILABLE(503),
    /** The session id is not one this page can fulfil (malformed, unknown, another mode). */
    REFUSED(400);

    private final int httpStatus;

    State(int httpStatus) {
      this.httpStatus = httpStatus;
    }

    /** The HTTP status the server answers this state with. */
    public int httpStatus() {
      return httpStatus;
    }
  }

  /**
   * What to show.
   *
   * @param state the state
   * @param item the item bought, when {@link State#FULFILLED}; else {@code null}
   * @param message one line fit for the customer (never a provider's or a driver's text)
   */
  public record Result(State state, Item item, String message) {

    /** Checks state and message are present. */
    public Result {
      Objects.requireNonNull(state, "state");
      Objects.requireNonNull(message, "message");
    }

    /** The answer's one line of JSON: {@code {"state":"fulfilled","message":...,"item":{...}}}. */
    public String json() {
      JsonObject json = new JsonObject();
      json.addProperty("state", state.name().toLowerCase(Locale.ROOT));
      json.addProperty("message", message);
      if (item != null) {
        JsonObject bought = new JsonObject();
        bought.addProperty("id", item.providerOrderId());
        bought.addProperty("payload", item.payload());
        json.add("item", bought);
      }
      return json.toString();
    }
  }

  private final StripeClient stripe;
  private final SessionMapping mapping;
  private final FulfilmentHandler handler;

  /**
   * @param stripe the client to read sessions with (its API key fixes the account and the mode)
   * @param mapping the webhook's mapping from a session to an order
   * @param handler the webhook's handler
   */
  public SuccessPage(StripeClient stripe, SessionMapping mapping, FulfilmentHandler handler) {
    this.stripe = Objects.requireNonNull(stripe, "stripe");
    this.mapping = Objects.requireNonNull(mapping, "mapping");
    this.handler = Objects.requireNonNull(handler, "handler");
  }

  /**
   * Fulfils the session the customer landed with, if it is paid and not fulfilled yet, and says
   * what to show. Safe to call any number of times, concurrently, and beside the webhook.
   *
   * @param sessionId the {@code session_id} of the success URL, as the browser sent it
   */
  public Result fulfil(String sessionId) {
    if (sessionId == null || !SESSION_ID.matcher(sessionId).matches()) {
      // not echoed: what the browser sent may be anything, and the page may show this message
      return refused(
          sessionId == null
              ? "no session_id: the success URL must carry ?session_id={CHECKOUT_SESSION_ID}"
              : "session_id is not a Checkout session id (cs_test_... or cs_live_...)");
    }
    Session session;
    try {
      session = stripe.v1().checkout().sessions().retrieve(sessionId);
    } catch (InvalidRequestException e) {
      if (e.getStatusCode() != null && e.getStatusCode() == 404) {
        return refused("no Checkout session " + sessionId + " on this Stripe account and mode");
      }
      LOG.error("success page: Stripe refused to read session {}: {}", sessionId, e.getCode());
      return unavailable();
    } catch (AuthenticationException e) {
      LOG.error("success page: Stripe refused the API key (check STRIPE_API_KEY): {}", e.getCode());
      return unavailable();
    } catch (ApiConnectionException e) {
      LOG.warn("success page: Stripe did not answer for session {}", sessionId);
      return unavailable();
    } catch (StripeException e) {
      LOG.error(
          "success page: Stripe failed to read session {} (status {}, code {})",
          sessionId,
          e.getStatusCode(),
          e.getCode());
      return unavailable();
    }
    if (!"checkout.session".equals(session.getObject()) || !sessionId.equals(session.getId())) {
      LOG.error("success page: Stripe answered another object for session {}", sessionId);
      return unavailable();
    }
    if (!"payment".equals(session.getMode())) {
      return refused(
          "session %s is a %s session, not a payment"
              .formatted(sessionId, Untrusted.id(session.getMode())));
    }
    if (!"complete".equals(session.getStatus())) {
      return new Result(
          State.UNPAID, null, "the checkout is not complete yet: finish paying to get your order");
    }
    CheckoutEvent event;
    try {
      event =
          CheckoutEvent.of(
              EVENT_ID,
              "checkout.session.completed",
              session.getPaymentStatus(),
              mapping.snapshot(session.getRawJsonObject()));
    } catch (RuntimeException e) {
      LOG.error("success page: session {} cannot be mapped to an order", sessionId, e);
      return new Result(
          State.FAILED,
          null,
          "we could not read your order; our team has been told and will fix it");
    }
    return shown(handler.handle(event));
  }

  /** The page's view of what the handler did. */
  static Result shown(FulfilmentOutcome outcome) {
    return switch (outcome.kind()) {
      case FULFILLED -> fulfilled(((FulfilmentOutcome.Fulfilled) outcome).record());
      case DUPLICATE -> fulfilled(((FulfilmentOutcome.Duplicate) outcome).record());
      case STALE_FAILURE -> {
        OrderRecord current = ((FulfilmentOutcome.StaleFailure) outcome).current();
        yield current.status() == OrderStatus.PROVISIONED ? fulfilled(current) : processing();
      }
      case IN_FLIGHT, ORPHANED -> processing();
      case AWAITING_PAYMENT ->
          new Result(
              State.UNPAID, null, "your payment is still being processed; your order follows it");
      case PAYMENT_FAILED ->
          new Result(
              State.FAILED, null, "your payment did not go through: nothing was charged for it");
      case PROVIDER_FAILED ->
          new Result(
              State.FAILED, null, "we could not deliver your order yet; we are trying again");
      case MISMATCH ->
          new Result(State.FAILED, null, "we could not match your order; our team has been told");
      // STORE_UNAVAILABLE, ORDER_LOST, INTERRUPTED, IGNORED (not for a completed session)
      default -> unavailable();
    };
  }

  private static Result fulfilled(OrderRecord record) {
    return new Result(State.FULFILLED, record.item(), "your order is ready");
  }

  private static Result processing() {
    return new Result(State.PROCESSING, null, "your order is being prepared; check again shortly");
  }

  private static Result unavailable() {
    return new Result(
        State.UNAVAILABLE, null, "we cannot check your order right now; try again in a minute");
  }

  private static Result refused(String why) {
    return new Result(State.REFUSED, null, why);
  }

  /**
   * The client the success page reads sessions with: a secret or restricted key, an http(s) API
   * base, and timeouts fit for a customer waiting (5 s to connect, 15 s to read, one retry).
   *
   * @param keySetting where the key came from, named in an error (never the key itself)
   * @param apiKey {@code sk_...} or {@code rk_...}
   * @param baseSetting where the API base came from, named in an error
   * @param apiBase Stripe's API, {@code https://api.stripe.com} (another for tests)
   * @throws IllegalArgumentException naming the bad setting
   */
  public static StripeClient client(
      String keySetting, String apiKey, String baseSetting, String apiBase) {
    if (!apiKey.startsWith("sk_") && !apiKey.startsWith("rk_")) {
      throw new IllegalArgumentException(
          keySetting
              + " must be a secret or restricted key (sk_... or rk_...; the success page"
              + " reads Checkout sessions with it), got one starting '"
              + Untrusted.id(apiKey.substring(0, Math.min(3, apiKey.length())))
              + "'");
    }
    URI base;
    try {
      base = new URI(apiBase.trim());
    } catch (URISyntaxException e) {
      base = null;
    }
    if (base == null
        || base.getHost() == null
        || !("https".equals(base.getScheme()) || "http".equals(base.getScheme()))) {
      throw new IllegalArgumentException(
          baseSetting
              + " must be an http(s) URL with a host, got '"
              + Untrusted.id(apiBase)
              + "' (e.g. https://api.stripe.com)");
    }
    // a customer waits on the page, and the call holds a delivery slot: fail fast, not in 80 s
    return StripeClient.builder()
        .setApiKey(apiKey)
        .setApiBase(base.toString().replaceAll("/+$", ""))
        .setConnectTimeout(5_000)
        .setReadTimeout(15_000)
        .setMaxNetworkRetries(1)
        .build();
  }
}
