package org.fencekit.fulfilment.scenarios.http;

import java.io.IOException;
import java.io.InputStream;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import java.util.stream.DoubleStream;
import java.util.stream.Stream;
import org.fencekit.fulfilment.scenarios.Timeline;

/**
 * One black-box scenario's world: its orders (Checkout sessions new to the endpoint), the events it
 * posts signed, the provider's steering for its orders, real waits scaled to the lease, and the
 * checks on what it can see from outside. Some checks run on every answer and provider call:
 *
 * <ol>
 *   <li>no order is bought more than once;
 *   <li>a delivery of a paying event answered 2xx (Stripe stops retrying) finds its order bought
 *       exactly once;
 *   <li>the provider is never called for an order no paying event was delivered for, and is asked
 *       for the session's product and quantity;
 *   <li>a delivery of {@link #otherCart another cart} under an order's session id is never answered
 *       2xx, and the provider is never asked for that cart.
 * </ol>
 *
 * {@link #finish()} then plays Stripe: it redelivers every event not yet answered 2xx (not another
 * cart's: those are retried until an operator acts), on a schedule scaled to the lease, until it is
 * (or fails the scenario after eight deliveries), and checks each paid order was bought exactly
 * once and each unpaid one never.
 */
final class HttpRun {

  /** The secret {@link Forgery#FORGED} events are signed with: never an endpoint's. */
  private static final String FORGING_SECRET = "whsec_forged_by_fencekit_scenarios";

  /** Stripe's retries, as multiples of the lease before each redelivery: bounded, like Stripe's. */
  private static final double[] RETRY_WAITS = {0.25, 0.5, 1, 1, 1, 2, 2, 2};

  /**
   * One delivery's answer.
   *
   * @param number the delivery's number in the scenario, from 1
   * @param event the event delivered
   * @param status the HTTP status, or -1 if no answer came (refused, reset, timed out)
   * @param body the answer's body, bounded and escaped for printing
   */
  record Answer(int number, StripeEvent event, int status, String body) {
    /** Whether Stripe would stop retrying the event. */
    boolean accepted() {
      return status >= 200 && status < 300;
    }

    String statusText() {
      return status < 0 ? "none" : String.valueOf(status);
    }
  }

  private final HttpScenario scenario;
  private final RunContext context;
  private final Timeline timeline = new Timeline(Clock.systemUTC());
  private final Map<String, String> orders = new LinkedHashMap<>(); // name -> session id
  private final Map<String, StripeEvent.Goods> goods = new LinkedHashMap<>(); // by name
  private final Set<String> paid = new LinkedHashSet<>(); // session ids
  private final Map<String, StripeEvent> events = new LinkedHashMap<>(); // by event id
  private final Set<String> accepted = new LinkedHashSet<>(); // event ids answered 2xx
  private final Map<String, StripeEvent.Goods> otherCarts = new LinkedHashMap<>(); // by event id
  private final List<CompletableFuture<Answer>> pending = new ArrayList<>();
  private final List<String> problems = new ArrayList<>();
  private int eventCount;
  private int deliveryCount;

  HttpRun(HttpScenario scenario, RunContext context) {
    this.scenario = scenario;
    this.context = context;
  }

  /** What happened, step by step, the clock since the scenario started. */
  Timeline timeline() {
    return timeline;
  }

  /** The lease times {@code factor}. */
  Duration leases(double factor) {
    return context.leases(factor);
  }

  /** The orders by name, each with its session id, in the order they were made. */
  synchronized Map<String, String> orders() {
    return new LinkedHashMap<>(orders);
  }

  /**
   * The order {@code name}: a Checkout session id new to the endpoint, for one {@link
   * StripeEvent#PRODUCT} unless {@link #order(String, StripeEvent.Goods)} made it first.
   */
  synchronized String order(String name) {
    String existing = orders.get(name);
    return existing != null ? existing : order(name, StripeEvent.Goods.ONE);
  }

  /**
   * Makes the order {@code name}, selling {@code sold}, before any of its events: every provider
   * call for it must ask for that product and quantity.
   */
  synchronized String order(String name, StripeEvent.Goods sold) {
    if (orders.containsKey(name)) {
      throw new IllegalStateException("order " + name + " was made already");
    }
    String sessionId = "cs_test_" + context.nonce() + "_" + scenario.shortId() + "_" + name;
    orders.put(name, sessionId);
    goods.put(name, sold);
    steer(name, true);
    if (!sold.equals(StripeEvent.Goods.ONE)) {
      timeline.add("runner", name + " sells " + sold + " for " + sold.amount() + " cents");
    }
    return sessionId;
  }

  /**
   * Steers the provider's calls for order {@code name}, before any: each call takes the next of
   * {@code script}, then succeeds.
   *
   * @param honourKeys whether a key bought before gets that item back rather than a new purchase
   */
  void steer(String name, boolean honourKeys, Steer... script) {
    context.provider().plan(order(name), honourKeys, List.of(script), listener(name));
    if (script.length > 0 || !honourKeys) {
      String steering = Stream.of(script).map(Steer::name).collect(Collectors.joining(", "));
      timeline.add(
          "runner",
          "provider for "
              + name
              + (honourKeys ? " (keys honoured)" : " (keys ignored: a replayed key buys again)")
              + (steering.isEmpty() ? "" : ": calls " + steering + ", then SUCCEED"));
    }
  }

  /**
   * What the scenario saw, in a line: each delivery's answer in order, and each order's purchases.
   */
  String summary() {
    List<String> answers = new ArrayList<>();
    for (CompletableFuture<Answer> answer : pending()) {
      Answer got = answer.getNow(null);
      answers.add(got == null ? "pending" : got.statusText());
    }
    List<String> bought = new ArrayList<>();
    for (Map.Entry<String, String> order : orders().entrySet()) {
      bought.add(order.getKey() + " " + context.provider().purchases(order.getValue()));
    }
    return "answers " + String.join(" ", answers) + "; bought " + String.join(", ", bought);
  }

  /** For each order, what each provider call did: the steering a replay shows. */
  Map<String, List<String>> steering() {
    Map<String, List<String>> steering = new LinkedHashMap<>();
    for (Map.Entry<String, String> order : orders().entrySet()) {
      List<String> calls = new ArrayList<>();
      for (ProviderServer.Call call : context.provider().calls(order.getValue())) {
        calls.add("#" + call.number + " " + call.steer + ": " + call.what());
      }
      boolean honours = context.provider().honoursKeys(order.getValue());
      calls.add(0, honours ? "keys honoured" : "keys ignored");
      steering.put(order.getKey(), calls);
    }
    return steering;
  }

  StripeEvent paid(String name) {
    return event(name, StripeEvent.COMPLETED, "paid");
  }

  StripeEvent unpaid(String name) {
    return event(name, StripeEvent.COMPLETED, "unpaid");
  }

  StripeEvent free(String name) {
    return event(name, StripeEvent.COMPLETED, "no_payment_required");
  }

  StripeEvent asyncSucceeded(String name) {
    return event(name, StripeEvent.ASYNC_SUCCEEDED, "paid");
  }

  StripeEvent asyncFailed(String name) {
    return event(name, StripeEvent.ASYNC_FAILED, "unpaid");
  }

  /**
   * A paid {@code checkout.session.completed} under order {@code name}'s session id selling {@code
   * cart}, another cart than the order's: a different order under one key. It must be answered
   * non-2xx (Stripe retries it until an operator acts, so {@link #finish()} does not play its
   * retries), and no provider call for the order may ask for its cart.
   */
  synchronized StripeEvent otherCart(String name, StripeEvent.Goods cart) {
    order(name);
    if (cart.equals(goods.get(name))) {
      throw new IllegalArgumentException(name + " sells " + cart + " already: name another cart");
    }
    StripeEvent event = event(name, StripeEvent.COMPLETED, "paid", cart);
    otherCarts.put(event.id(), cart);
    timeline.add(
        "runner",
        event.id()
            + " carries another cart under the session id of "
            + name
            + ": "
            + cart
            + " for "
            + cart.amount()
            + " cents");
    return event;
  }

  private synchronized StripeEvent event(String name, String type, String paymentStatus) {
    order(name); // made now, selling one of the first product, unless the scenario made it
    return event(name, type, paymentStatus, goods.get(name));
  }

  private synchronized StripeEvent event(
      String name, String type, String paymentStatus, StripeEvent.Goods sold) {
    String sessionId = order(name);
    String id = "evt_" + context.nonce() + "_" + scenario.shortId() + "_" + ++eventCount;
    long created = System.currentTimeMillis() / 1000;
    StripeEvent event = StripeEvent.of(id, type, sessionId, paymentStatus, sold, created);
    events.put(id, event);
    return event;
  }

  /** The cart of {@code event} if it is an {@link #otherCart}, else {@code null}. */
  private synchronized StripeEvent.Goods otherCart(StripeEvent event) {
    return otherCarts.get(event.id());
  }

  /** Whether a provider call for order {@code name} asked for one of its other carts. */
  private synchronized StripeEvent.Goods otherCartAsked(String name, ProviderServer.Call call) {
    String sessionId = orders.get(name);
    for (Map.Entry<String, StripeEvent.Goods> other : otherCarts.entrySet()) {
      StripeEvent.Goods cart = other.getValue();
      if (events.get(other.getKey()).sessionId().equals(sessionId)
          && cart.product().equals(call.product)
          && cart.quantity() == call.quantity) {
        return cart;
      }
    }
    return null;
  }

  /** Posts {@code event}, signed, to the first instance without waiting for the answer. */
  CompletableFuture<Answer> deliver(StripeEvent event) {
    return deliver(event, 1);
  }

  /**
   * Posts {@code event}, signed, to instance {@code instance} (1 or 2; with one instance, it plays
   * both) without waiting for the answer.
   */
  CompletableFuture<Answer> deliver(StripeEvent event, int instance) {
    int number;
    synchronized (this) {
      number = ++deliveryCount;
      if (event.paying()) {
        paid.add(event.sessionId());
      }
    }
    String body = event.body();
    long now = System.currentTimeMillis() / 1000;
    HttpRequest request =
        HttpRequest.newBuilder(context.endpoint(instance))
            .timeout(context.deliveryTimeout())
            .header("Content-Type", "application/json; charset=utf-8")
            .header("User-Agent", "Stripe/1.0 (+https://stripe.com/docs/webhooks)")
            .header("Stripe-Signature", context.signer().header(now, body))
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build();
    timeline.add(
        "runner",
        "d"
            + number
            + ": posts "
            + event.id()
            + " ("
            + event.describe()
            + ") for "
            + name(event)
            + (context.twoInstances() ? " to instance " + instance : ""));
    CompletableFuture<Answer> answer =
        context
            .client()
            .sendAsync(request, HttpResponse.BodyHandlers.ofInputStream())
            .handle(
                (response, thrown) ->
                    response != null
                        ? new Answer(number, event, response.statusCode(), head(response.body()))
                        : new Answer(number, event, -1, why(thrown)))
            .thenApply(this::answered);
    synchronized (this) {
      pending.add(answer);
    }
    return answer;
  }

  /** How a delivery the runner forges differs from Stripe's. */
  enum Forgery {
    /** No {@code Stripe-Signature} header at all. */
    UNSIGNED("unsigned (no Stripe-Signature)"),
    /** Signed now, with a secret that is not the endpoint's. */
    FORGED("signed with another secret"),
    /** Signed with the endpoint's secret an hour ago: a captured delivery replayed. */
    STALE("signed with the endpoint's secret an hour ago"),
    /** The endpoint's signature of the same event unpaid, on a body that says paid. */
    TAMPERED("the body changed to paid after it was signed unpaid");

    private final String description;

    Forgery(String description) {
      this.description = description;
    }

    /** What is wrong with it, in words. */
    String description() {
      return description;
    }
  }

  /**
   * Posts {@code event} as Stripe never would ({@code how}) and waits for the answer, which must
   * not be 2xx: an endpoint must act only on events signed by Stripe with its secret, recently. It
   * is no payment: Stripe never retries it and it allows no purchase.
   */
  void expectRefused(StripeEvent event, Forgery how) {
    String body = event.body();
    long now = System.currentTimeMillis() / 1000;
    HttpRequest.Builder request =
        HttpRequest.newBuilder(context.endpoint(1))
            .timeout(context.deliveryTimeout())
            .header("Content-Type", "application/json; charset=utf-8")
            .header("User-Agent", "Stripe/1.0 (+https://stripe.com/docs/webhooks)");
    switch (how) {
      case UNSIGNED -> {}
      case FORGED ->
          request.header("Stripe-Signature", new StripeSigner(FORGING_SECRET).header(now, body));
      case STALE -> request.header("Stripe-Signature", context.signer().header(now - 3600, body));
      case TAMPERED -> {
        String unpaid =
            body.replace("\"payment_status\":\"paid\"", "\"payment_status\":\"unpaid\"");
        if (unpaid.equals(body)) {
          throw new IllegalStateException("a tampered event needs a paid body: " + event.id());
        }
        request.header("Stripe-Signature", context.signer().header(now, unpaid));
      }
    }
    timeline.add(
        "runner",
        "posts "
            + event.id()
            + " ("
            + event.describe()
            + ") for "
            + name(event)
            + ", "
            + how.description());
    int status;
    String answer;
    try {
      HttpResponse<InputStream> response =
          context
              .client()
              .send(
                  request.POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                  HttpResponse.BodyHandlers.ofInputStream());
      status = response.statusCode();
      answer = head(response.body());
    } catch (IOException e) {
      status = -1;
      answer = why(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new Breach("interrupted while waiting for an answer");
    }
    timeline.add(
        "endpoint",
        event.id() + (status < 0 ? " got no answer " : " answered " + status + " ") + answer);
    check();
    if (status >= 200 && status < 300) {
      throw new Breach(
          String.format(
              "%s (%s) for %s, %s, was answered %s: an endpoint must refuse (non-2xx) an event"
                  + " not signed by Stripe with its secret within the tolerance (check"
                  + " Stripe-Signature against the raw body before acting)",
              event.id(), event.describe(), name(event), how.description(), status));
    }
  }

  /** Posts {@code event} to the first instance and waits for its answer. */
  Answer deliverAndAwait(StripeEvent event) {
    return deliverAndAwait(event, 1);
  }

  /** Posts {@code event} to instance {@code instance} and waits for its answer. */
  Answer deliverAndAwait(StripeEvent event, int instance) {
    return await(deliver(event, instance));
  }

  /** Waits for a delivery's answer (it times out on its own, at the delivery timeout). */
  Answer await(CompletableFuture<Answer> answer) {
    try {
      Answer got =
          answer.get(context.deliveryTimeout().plusSeconds(5).toMillis(), TimeUnit.MILLISECONDS);
      check();
      return got;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new Breach("interrupted while waiting for an answer");
    } catch (ExecutionException | TimeoutException e) {
      throw new Breach("no answer came for a delivery: " + e);
    }
  }

  private Answer answered(Answer answer) {
    String sessionId = answer.event().sessionId();
    int purchases = context.provider().purchases(sessionId);
    timeline.add(
        "endpoint",
        "d"
            + answer.number()
            + (answer.status() < 0 ? " got no answer " : " answered " + answer.status() + " ")
            + answer.body());
    synchronized (this) {
      if (answer.accepted()) {
        accepted.add(answer.event().id());
      }
    }
    StripeEvent.Goods otherCart = otherCart(answer.event());
    if (otherCart != null) {
      if (answer.accepted()) {
        problem(
            String.format(
                "d%s for %s carried another cart (%s) under the order's session id and was"
                    + " answered %s, so Stripe stops retrying and nobody looks: another order"
                    + " under one session id must be answered non-2xx (fencekit answers 422)",
                answer.number(), name(answer.event()), otherCart, answer.status()));
      }
    } else if (answer.accepted() && answer.event().paying() && purchases != 1) {
      problem(
          String.format(
              "d%s (%s) for %s was answered %s, so Stripe stops retrying, with the order bought"
                  + " %s time(s): a paid order must be bought exactly once by then%s",
              answer.number(),
              answer.event().describe(),
              name(answer.event()),
              answer.status(),
              purchases,
              purchases == 0 ? " (this customer paid and gets nothing)" : ""));
    }
    return answer;
  }

  private ProviderServer.Listener listener(String name) {
    return new ProviderServer.Listener() {
      @Override
      public void arrived(ProviderServer.Call call) {
        timeline.add(
            "provider",
            String.format(
                "call #%s for %s%s: %s",
                call.number,
                name,
                call.key == null ? " with no Idempotency-Key" : " with key " + shorten(call.key),
                call.steer.description()));
        if (!paying(call.order)) {
          problem(
              String.format(
                  "the provider was called (call #%s) for %s, which no paid event signed by"
                      + " Stripe was delivered for: an unpaid order must not be bought, nor one"
                      + " a forged, unsigned or stale event says is paid",
                  call.number, name));
        }
        StripeEvent.Goods sold = goods(name);
        StripeEvent.Goods other = otherCartAsked(name, call);
        if (other != null && !other.equals(sold)) {
          problem(
              String.format(
                  "call #%s for %s asked the provider for %s, the other cart delivered under the"
                      + " order's session id; the order sells %s: another order under one session"
                      + " id must buy nothing and be answered non-2xx",
                  call.number, name, other, sold));
        } else if (!sold.product().equals(call.product) || call.quantity != sold.quantity()) {
          problem(
              String.format(
                  "call #%s for %s asked the provider for %s x%s; the session sells %s (its"
                      + " metadata.product_id and metadata.quantity): buy what was ordered",
                  call.number, name, shorten(String.valueOf(call.product)), call.quantity, sold));
        }
      }

      @Override
      public void bought(ProviderServer.Call call) {
        int purchases = context.provider().purchases(call.order);
        if (purchases > 1) {
          problem(
              String.format(
                  "%s was bought %s times: call #%s bought again (%s); an order is bought at most"
                      + " once",
                  name, purchases, call.number, keys(call.order)));
        }
      }

      @Override
      public void finished(ProviderServer.Call call) {
        timeline.add("provider", "call #" + call.number + " for " + name + ": " + call.what());
      }
    };
  }

  private synchronized StripeEvent.Goods goods(String name) {
    return goods.get(name);
  }

  private String keys(String sessionId) {
    return context.provider().calls(sessionId).stream()
        .filter(ProviderServer.Call::bought)
        .map(
            call ->
                "#" + call.number + (call.key == null ? " no key" : " key " + shorten(call.key)))
        .collect(Collectors.joining(", ", "purchases by call ", ""));
  }

  /**
   * Waits until order {@code name} has had its {@code n}-th provider call.
   *
   * @throws Breach if it does not come within the delivery timeout
   */
  ProviderServer.Call awaitCall(String name, int n) {
    try {
      ProviderServer.Call call =
          context.provider().awaitCall(order(name), n, context.deliveryTimeout());
      check();
      if (call == null) {
        throw new Breach(
            String.format(
                "the provider got %s call(s) for %s within %ss; the scenario waits for call #%s"
                    + " (does the endpoint buy from the runner's provider, POST /purchases?)",
                context.provider().calls(order(name)).size(),
                name,
                context.deliveryTimeout().toSeconds(),
                n));
      }
      return call;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new Breach("interrupted while waiting for a provider call");
    }
  }

  /** Releases order {@code name}'s hanging call {@code n}, which then does {@code then}. */
  void release(String name, int n, Steer then) {
    ProviderServer.Call call = awaitCall(name, n);
    timeline.add("runner", "releases call #" + n + " for " + name + ": " + then.description());
    context.provider().release(call, then);
  }

  /** Waits, in real time, the lease times {@code factor}. */
  void pause(double factor) {
    Duration wait = leases(factor);
    timeline.add("runner", "waits " + wait.toMillis() + "ms (" + factor + " lease)");
    sleep(wait);
    check();
  }

  /** Kills the endpoint (SIGKILL) and starts it again, or runs the restart command. */
  void crash() {
    timeline.add("runner", "crashes the endpoint (SIGKILL, or the restart command)");
    try {
      context.control().crash();
    } catch (EndpointControl.EndpointDown e) {
      throw new Breach("the endpoint did not come back after the crash: " + e.getMessage());
    }
    timeline.add("runner", "the endpoint answers again");
  }

  /**
   * The answer must tell Stripe to retry (anything but 2xx), judged by its effect: a 2xx is right
   * when the order was bought exactly once by then (an endpoint whose provider client retried at
   * once with the same key, and landed).
   */
  void expectRetry(Answer answer, String because) {
    check();
    if (answer.accepted() && context.provider().purchases(answer.event().sessionId()) != 1) {
      throw new Breach(
          String.format(
              "d%s for %s was answered %s, so Stripe stops retrying, but %s and the order is not"
                  + " bought exactly once: it must answer anything but 2xx so Stripe retries",
              answer.number(), name(answer.event()), answer.status(), because));
    }
  }

  /** The answer must tell Stripe to stop (2xx). */
  void expectAccepted(Answer answer, String because) {
    check();
    if (!answer.accepted()) {
      throw new Breach(
          String.format(
              "d%s for %s%s, so Stripe retries, but %s: it must answer 2xx",
              answer.number(),
              name(answer.event()),
              answer.status() < 0 ? " got no answer" : " was answered " + answer.status(),
              because));
    }
  }

  /** Order {@code name} has been bought exactly {@code n} times so far. */
  void expectPurchases(String name, int n) {
    check();
    int purchases = context.provider().purchases(order(name));
    if (purchases != n) {
      throw new Breach(
          String.format(
              "%s was bought %s time(s), expected %s (%s)", name, purchases, n, keys(order(name))));
    }
  }

  /**
   * Plays Stripe to the end: waits for every delivery, redelivers each event not answered 2xx until
   * it is (at most eight more deliveries each, spaced by 0.25 to 2 leases), then checks each order:
   * bought exactly once if a paying event was delivered for it, else never.
   */
  void finish() {
    awaitAll();
    List<StripeEvent> open;
    synchronized (this) {
      open =
          events.values().stream()
              .filter(e -> !accepted.contains(e.id()) && !otherCarts.containsKey(e.id()))
              .filter(this::delivered)
              .toList();
    }
    for (StripeEvent event : open) {
      retryUntilAccepted(event);
    }
    awaitAll();
    orders().forEach((name, sessionId) -> expectPurchases(name, paying(sessionId) ? 1 : 0));
  }

  private void retryUntilAccepted(StripeEvent event) {
    Answer last = null;
    for (double wait : RETRY_WAITS) {
      pause(wait);
      timeline.add("runner", "Stripe retries " + event.id());
      last = deliverAndAwait(event);
      if (last.accepted()) {
        return;
      }
    }
    throw new Breach(
        String.format(
            "%s (%s) for %s was never answered 2xx: Stripe gave up after %s retries over %s leases"
                + " (last answer %s); a correct endpoint answers 2xx once the order is fulfilled"
                + " or needs nothing",
            event.id(),
            event.describe(),
            name(event),
            RETRY_WAITS.length,
            Math.round(DoubleStream.of(RETRY_WAITS).sum() * 100) / 100.0,
            last.statusText()));
  }

  /** Whether a paying event was delivered for the order {@code sessionId}. */
  private synchronized boolean paying(String sessionId) {
    return paid.contains(sessionId);
  }

  private synchronized boolean delivered(StripeEvent event) {
    return pending.stream()
        .map(answer -> answer.getNow(null))
        .anyMatch(got -> got != null && got.event().id().equals(event.id()));
  }

  private void awaitAll() {
    for (CompletableFuture<Answer> answer : pending()) {
      await(answer);
    }
  }

  /** The deliveries posted so far, answered or not, in the order they were posted. */
  private synchronized List<CompletableFuture<Answer>> pending() {
    return List.copyOf(pending);
  }

  /** Throws the first problem a check on an answer or a provider call found. */
  synchronized void check() {
    if (!problems.isEmpty()) {
      throw new Breach(problems.get(0));
    }
  }

  private synchronized void problem(String problem) {
    problems.add(problem);
    timeline.add("check", "BREACH: " + problem);
  }

  private synchronized String name(StripeEvent event) {
    for (Map.Entry<String, String> order : orders.entrySet()) {
      if (order.getValue().equals(event.sessionId())) {
        return order.getKey() + " (" + event.sessionId() + ")";
      }
    }
    return event.sessionId();
  }

  private static String why(Throwable thrown) {
    Throwable cause = thrown;
    while (cause.getCause() != null
        && (cause instanceof ExecutionException
            || cause instanceof CompletionException
            || cause.getClass() == IOException.class)) {
      cause = cause.getCause();
    }
    if (cause instanceof HttpTimeoutException) {
      return "(timed out)";
    }
    return "(" + shorten(cause.getClass().getSimpleName() + ": " + cause.getMessage()) + ")";
  }

  /** The start of an answer's body, as {@link #shorten} prints it: at most 4 KiB is read. */
  private static String head(InputStream body) {
    try (body) {
      return shorten(new String(body.readNBytes(4096), StandardCharsets.UTF_8));
    } catch (IOException e) {
      return "(the body could not be read: " + e.getClass().getSimpleName() + ")";
    }
  }

  /** {@code text} on one line, printable ASCII, at most 120 characters. */
  static String shorten(String text) {
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < text.length() && out.length() < 120; i++) {
      char c = text.charAt(i);
      out.append(c >= 0x20 && c < 0x7f ? String.valueOf(c) : String.format("\\u%04x", (int) c));
    }
    return text.length() > 120 ? out + "..." : out.toString();
  }

  static void sleep(Duration wait) {
    try {
      Thread.sleep(wait.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new Breach("interrupted while waiting");
    }
  }
}
