package org.fencekit.server;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParseException;
import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.fencekit.fulfilment.Provider;
import org.fencekit.fulfilment.ProviderException;
import org.fencekit.fulfilment.Purchase;
import org.fencekit.store.Item;
import org.fencekit.webhook.StrictJson;
import org.fencekit.webhook.Untrusted;

/**
 * A {@link Provider} that buys over HTTP, with the protocol of the black-box runner's fake provider
 * (webhook-server/README.md, "Buy over HTTP"):
 *
 * <ol>
 *   <li>one {@code POST <base>/purchases} per attempt, with the order's {@code Idempotency-Key}
 *       ({@link Purchase#idempotencyKey()}, the same on every attempt) and the body {@code
 *       {"order":<session id>,"product":<product id>,"quantity":<n>}};
 *   <li>a 2xx answer {@code {"item_id":...,"payload":...}} is the item;
 *   <li>a 4xx answer means nothing was bought: {@link ProviderException#nothingBought(String)},
 *       quoting the answer's {@code error} and {@code message} bounded and escaped;
 *   <li>anything else may have bought: a 5xx, a 2xx without an item fencekit can record, a redirect
 *       (never followed, so nothing is posted twice), no whole answer within the timeout, a
 *       connection that fails or drops: {@link ProviderException#outcomeUnknown};
 *   <li>an interrupted call cancels its request and throws {@link InterruptedException} (the
 *       handler records the outcome as unknown).
 * </ol>
 *
 * The timeout bounds the whole exchange, connecting included; at most {@value #MAX_ANSWER_BYTES}
 * bytes of an answer are read. Safe for many threads.
 */
public final class HttpProvider implements Provider {

  /** How long one purchase may take unless told otherwise: 30 s. */
  public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(30);

  /** The most of an answer read: room for an item's 65,536-character payload, JSON-escaped. */
  static final int MAX_ANSWER_BYTES = 512 * 1024;

  private static final Duration MAX_CONNECT_TIMEOUT = Duration.ofSeconds(10);

  private final URI purchases;
  private final Duration timeout;
  private final HttpClient client;

  /**
   * A provider posting to {@code <baseUrl>/purchases}.
   *
   * @param baseUrl an http or https URL with a host, without credentials, query or fragment
   * @param timeout the longest one purchase may take, connecting included; more than 0
   * @throws IllegalArgumentException naming what is wrong with either
   */
  public HttpProvider(URI baseUrl, Duration timeout) {
    this("baseUrl", Objects.requireNonNull(baseUrl, "baseUrl").toString(), timeout);
  }

  /**
   * The provider an operator configured: {@code name} (the variable or option) is named in every
   * error, and the URL's text is never echoed whole, since it might carry a credential.
   */
  HttpProvider(String name, String baseUrl, Duration timeout) {
    Objects.requireNonNull(timeout, "timeout");
    if (timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException(
          "the provider timeout must be more than 0, got " + timeout + " (e.g. 30s)");
    }
    this.purchases = purchases(name, baseUrl);
    this.timeout = timeout;
    this.client =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .followRedirects(HttpClient.Redirect.NEVER)
            .connectTimeout(
                timeout.compareTo(MAX_CONNECT_TIMEOUT) < 0 ? timeout : MAX_CONNECT_TIMEOUT)
            .build();
  }

  private static URI purchases(String name, String text) {
    String remedy =
        ": give the provider's base URL, e.g. http://127.0.0.1:9099 (purchases are posted to"
            + " <base>/purchases)";
    if (text == null || text.isBlank()) {
      throw new IllegalArgumentException(name + " is blank" + remedy);
    }
    URI base;
    try {
      base = new URI(text.trim());
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException(
          name + " is not a URL (" + e.getReason() + " at index " + e.getIndex() + ")" + remedy);
    }
    String scheme = base.getScheme() == null ? "" : base.getScheme().toLowerCase(Locale.ROOT);
    if (!scheme.equals("http") && !scheme.equals("https")) {
      throw new IllegalArgumentException(
          name
              + " must be an http:// or https:// URL, got "
              + (scheme.isEmpty() ? "none" : "scheme '" + Untrusted.id(scheme) + "'")
              + remedy);
    }
    if (base.getRawUserInfo() != null) {
      throw new IllegalArgumentException(
          name
              + " carries credentials (user:password@), which fencekit neither sends nor keeps out"
              + " of its log"
              + remedy);
    }
    if (base.getHost() == null) {
      throw new IllegalArgumentException(
          name + " has no host (or one that is not a valid host name)" + remedy);
    }
    if (base.getRawQuery() != null || base.getRawFragment() != null) {
      throw new IllegalArgumentException(
          name + " has a query or a fragment, which a base URL cannot have" + remedy);
    }
    String path = base.getRawPath() == null ? "" : base.getRawPath().replaceAll("/+$", "");
    return URI.create(scheme + "://" + base.getRawAuthority() + path + "/purchases");
  }

  @Override
  public Item buy(Purchase purchase) throws ProviderException, InterruptedException {
    JsonObject body = new JsonObject();
    body.addProperty("order", purchase.sessionId());
    body.addProperty("product", purchase.productId());
    body.addProperty("quantity", purchase.quantity());
    HttpRequest request =
        HttpRequest.newBuilder(purchases)
            .timeout(timeout)
            .header("Content-Type", "application/json")
            .header("Accept", "application/json")
            .header("Idempotency-Key", purchase.idempotencyKey())
            .POST(HttpRequest.BodyPublishers.ofString(body.toString(), StandardCharsets.UTF_8))
            .build();
    CompletableFuture<HttpResponse<Answer>> pending =
        client.sendAsync(request, info -> new BoundedAnswer());
    HttpResponse<Answer> response;
    try {
      response = pending.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      pending.cancel(true);
      throw e;
    } catch (TimeoutException e) {
      pending.cancel(true);
      throw timedOut(e);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause() == null ? e : e.getCause();
      if (cause instanceof HttpTimeoutException
          && !(cause instanceof HttpConnectTimeoutException)) {
        // the client's own request timeout, the same bound, fired first (a busy machine)
        throw timedOut(cause);
      }
      throw unknown(
          "no answer: "
              + cause.getClass().getSimpleName()
              + (cause.getMessage() == null
                  ? ""
                  : ": " + Untrusted.text(cause.getMessage(), Untrusted.REASON_LENGTH)),
          cause);
    }
    return item(response.statusCode(), response.body());
  }

  /** The outcome is unknown: no whole answer came within the timeout. */
  private ProviderException timedOut(Throwable cause) {
    return unknown("no whole answer within the provider timeout of " + timeout, cause);
  }

  private Item item(int status, Answer answer) throws ProviderException {
    if (status >= 400 && status < 500) {
      throw ProviderException.nothingBought(
          "the provider refused the purchase (POST %s answered %s %s): nothing was bought"
              .formatted(purchases, status, quote(answer)));
    }
    boolean success = status >= 200 && status < 300;
    if (success && answer.cut()) {
      throw unknown(
          "it answered " + status + " with more than " + MAX_ANSWER_BYTES + " bytes", null);
    }
    JsonObject json = answer.json();
    if (!success || json == null) {
      throw unknown("it answered " + status + " " + quote(answer), null);
    }
    String itemId = StrictJson.string(json.get("item_id"));
    JsonElement payload = json.get("payload");
    boolean payloadOk =
        payload == null || payload.isJsonNull() || StrictJson.string(payload) != null;
    if (itemId == null || !payloadOk) {
      throw unknown(
          "it answered "
              + status
              + " without an \"item_id\" string and a \"payload\" string or null",
          null);
    }
    try {
      return new Item(itemId, StrictJson.string(payload));
    } catch (IllegalArgumentException e) {
      throw unknown(
          "it answered %s with an item fencekit cannot record (%s)"
              .formatted(status, Untrusted.text(e.getMessage(), Untrusted.REASON_LENGTH)),
          e);
    }
  }

  private ProviderException unknown(String what, Throwable cause) {
    return ProviderException.outcomeUnknown(
        ("the provider call's outcome is unknown (POST %s: %s): it may have bought; a retry sends"
                + " the same Idempotency-Key")
            .formatted(purchases, what),
        cause);
  }

  /** The answer's {@code error} and {@code message}, or its text, bounded and escaped. */
  private static String quote(Answer answer) {
    String text = answer.text();
    if (text.isEmpty()) {
      return "with no body";
    }
    JsonObject json = answer.json();
    String error = json == null ? null : StrictJson.string(json.get("error"));
    String message = json == null ? null : StrictJson.string(json.get("message"));
    if (error != null || message != null) {
      return Untrusted.id(error) + ": " + Untrusted.text(message, Untrusted.REASON_LENGTH);
    }
    return "with a body that is not the protocol's JSON error ("
        + Untrusted.text(text, Untrusted.REASON_LENGTH)
        + (answer.cut() ? ", cut at " + MAX_ANSWER_BYTES + " bytes" : "")
        + ")";
  }

  @Override
  public String toString() {
    return "HttpProvider (POST " + purchases + ", timeout " + timeout + ")";
  }

  /** An answer's body as read: at most {@link #MAX_ANSWER_BYTES}, and whether it was cut. */
  private record Answer(String text, boolean cut) {

    /** The body as one strict JSON object, or {@code null} if it is not one or was cut. */
    JsonObject json() {
      if (cut) {
        return null;
      }
      try {
        JsonElement parsed = StrictJson.parse(text);
        return parsed.isJsonObject() ? parsed.getAsJsonObject() : null;
      } catch (JsonParseException e) {
        return null;
      }
    }
  }

  /** Reads an answer's body up to {@link #MAX_ANSWER_BYTES}, then hangs up. */
  private static final class BoundedAnswer implements HttpResponse.BodySubscriber<Answer> {

    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    private final CompletableFuture<Answer> body = new CompletableFuture<>();
    private Flow.Subscription subscription;

    @Override
    public CompletionStage<Answer> getBody() {
      return body;
    }

    @Override
    public void onSubscribe(Flow.Subscription subscription) {
      this.subscription = subscription;
      subscription.request(Long.MAX_VALUE);
    }

    @Override
    public void onNext(List<ByteBuffer> buffers) {
      if (body.isDone()) {
        return;
      }
      for (ByteBuffer buffer : buffers) {
        byte[] chunk = new byte[Math.min(buffer.remaining(), MAX_ANSWER_BYTES - bytes.size())];
        buffer.get(chunk);
        bytes.writeBytes(chunk);
        if (buffer.hasRemaining()) {
          subscription.cancel();
          body.complete(new Answer(bytes.toString(StandardCharsets.UTF_8), true));
          return;
        }
      }
    }

    @Override
    public void onError(Throwable failure) {
      body.completeExceptionally(failure);
    }

    @Override
    public void onComplete() {
      body.complete(new Answer(bytes.toString(StandardCharsets.UTF_8), false));
    }
  }
}
