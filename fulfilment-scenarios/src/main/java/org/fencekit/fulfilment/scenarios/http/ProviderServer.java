package org.fencekit.fulfilment.scenarios.http;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParseException;
import com.google.gson.JsonParser;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The fake provider the endpoint under test buys from, served over HTTP on loopback ({@code POST
 * /purchases}, the protocol in the module's README). Each order is steered by the scenario that
 * owns it ({@link #plan}); every call is recorded (its number for the order, its idempotency key,
 * when it came, what it did), and purchases are counted per order: with keys honoured, a call
 * carrying a key bought before gets that item again and is no new purchase.
 *
 * <ol>
 *   <li>a call is read (bounded: 64 KiB, a key of at most 255 characters) and its order found;
 *   <li>it takes the next {@link Steer} its order's plan holds ({@link Steer#SUCCEED} when none is
 *       left, or for an order no scenario planned);
 *   <li>a hanging call waits until its scenario {@link #release releases} it (at most ten minutes,
 *       then it refuses), and closing the server refuses every call still hanging.
 * </ol>
 */
final class ProviderServer implements AutoCloseable {

  private static final int MAX_BODY = 64 * 1024;
  private static final int MAX_KEY = 255;
  private static final Duration HANG_LIMIT = Duration.ofMinutes(10);

  /**
   * How long {@link #close()} waits for the refusals of the calls it let go to be sent, returning
   * as soon as they are: a refusal is written in a moment, but its thread may not run for a second
   * or more on a loaded machine (with 1 s, a stall that long stopped the server under the refusal:
   * the caller saw its connection drop, not 402).
   */
  private static final Duration CLOSE_LIMIT = Duration.ofSeconds(20);

  /** One purchase call as the provider saw it. */
  static final class Call {
    final int number;
    final String order;
    final String key;
    final String product;
    final int quantity;
    final Steer steer;
    private final CompletableFuture<Steer> release = new CompletableFuture<>();
    private final CompletableFuture<Void> done = new CompletableFuture<>();
    private volatile String what;
    private volatile boolean bought;

    Call(int number, String order, String key, String product, int quantity, Steer steer) {
      this.number = number;
      this.order = order;
      this.key = key;
      this.product = product;
      this.quantity = quantity;
      this.steer = steer;
      this.what = steer.description();
    }

    /** What the call did, in words. */
    String what() {
      return what;
    }

    /** Whether the call made a new purchase. */
    boolean bought() {
      return bought;
    }
  }

  /**
   * Hears of an order's calls: when each arrives, and when it has answered (or dropped). Each
   * method does nothing unless overridden.
   */
  interface Listener {
    /** {@code call} reached the provider; its steering is known, its outcome not yet. */
    default void arrived(Call call) {}

    /** {@code call} made a new purchase, now counted; nothing is answered yet. */
    default void bought(Call call) {}

    /** {@code call} was answered, dropped or abandoned; {@link Call#what()} says which. */
    default void finished(Call call) {}
  }

  /** How one order's calls are steered, who is told of them, and what they bought. */
  static final class Plan {
    final boolean honourKeys;
    final Listener listener;
    private final Deque<Steer> script;
    private final List<Call> calls = new ArrayList<>();
    private int purchases;

    Plan(boolean honourKeys, List<Steer> script, Listener listener) {
      this.honourKeys = honourKeys;
      this.script = new ArrayDeque<>(script);
      this.listener = listener;
    }
  }

  private record Item(String id, String order) {}

  private final HttpServer server;
  private final ThreadPoolExecutor executor;
  private final Map<String, Plan> plans = new HashMap<>();
  private final Map<String, Item> byKey = new HashMap<>();
  private final AtomicInteger items = new AtomicInteger();
  private final List<Call> hanging = new ArrayList<>();
  private boolean closed;

  private ProviderServer(HttpServer server, ThreadPoolExecutor executor) {
    this.server = server;
    this.executor = executor;
  }

  /**
   * Serves the provider on loopback {@code port} (0: any free port).
   *
   * @throws IOException if the port is taken or cannot be bound
   */
  /** Binds an HTTP server to a loopback port, or to one the system picks for port 0. */
  @FunctionalInterface
  interface Binder {
    HttpServer bind(int port) throws IOException;
  }

  /** The system's binder. */
  static final Binder SYSTEM =
      port -> HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 64);

  /**
   * Serves the provider on loopback {@code port}, or for port 0 on one the system picks that is
   * none of {@code endpointPorts}: an endpoint the runner launches binds its port only after this,
   * and the system may hand a port that was free a moment ago to the provider first.
   */
  static ProviderServer start(int port, Set<Integer> endpointPorts) throws IOException {
    return start(port, endpointPorts, SYSTEM);
  }

  static ProviderServer start(int port, Set<Integer> endpointPorts, Binder binder)
      throws IOException {
    HttpServer server = binder.bind(port);
    List<HttpServer> held = new ArrayList<>();
    try { // while one holds an endpoint's port, the system cannot hand it out again
      while (port == 0 && endpointPorts.contains(server.getAddress().getPort())) {
        held.add(server);
        server = binder.bind(0);
      }
    } finally {
      for (HttpServer first : held) {
        first.start(); // an HttpServer lets go of its port only once its dispatcher has run
        first.stop(0);
      }
    }
    AtomicInteger threads = new AtomicInteger();
    ThreadFactory daemons =
        task -> {
          Thread thread = new Thread(task, "fake-provider-" + threads.incrementAndGet());
          thread.setDaemon(true);
          return thread;
        };
    ThreadPoolExecutor executor =
        new ThreadPoolExecutor(0, 128, 30, TimeUnit.SECONDS, new SynchronousQueue<>(), daemons);
    ProviderServer provider = new ProviderServer(server, executor);
    server.createContext("/", provider::handle);
    server.setExecutor(executor);
    server.start();
    return provider;
  }

  /** The port it listens on. */
  int port() {
    return server.getAddress().getPort();
  }

  /** Its base URL, e.g. {@code http://127.0.0.1:9099}. */
  String baseUrl() {
    return "http://127.0.0.1:" + port();
  }

  /**
   * Steers the calls for {@code order}: each takes the next of {@code script}; {@code listener}
   * hears of each call as it arrives.
   *
   * @param honourKeys whether a key bought before hands that item back instead of buying again
   */
  synchronized void plan(String order, boolean honourKeys, List<Steer> script, Listener listener) {
    plans.put(order, new Plan(honourKeys, script, listener));
  }

  /** The new purchases made for {@code order} so far. */
  synchronized int purchases(String order) {
    Plan plan = plans.get(order);
    return plan == null ? 0 : plan.purchases;
  }

  /** Whether a key bought before hands that item back for {@code order} (planned or not). */
  synchronized boolean honoursKeys(String order) {
    Plan plan = plans.get(order);
    return plan == null || plan.honourKeys;
  }

  /** The calls made for {@code order} so far, in the order they came. */
  synchronized List<Call> calls(String order) {
    Plan plan = plans.get(order);
    return plan == null ? List.of() : List.copyOf(plan.calls);
  }

  /**
   * Waits until {@code order} has had {@code n} calls (counting from 1), at most {@code patience}.
   *
   * @return the {@code n}-th call, or {@code null} if it did not come in time
   */
  synchronized Call awaitCall(String order, int n, Duration patience) throws InterruptedException {
    long deadline = System.nanoTime() + patience.toNanos();
    while (true) {
      List<Call> calls = calls(order);
      if (calls.size() >= n) {
        return calls.get(n - 1);
      }
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        return null;
      }
      TimeUnit.NANOSECONDS.timedWait(this, left);
    }
  }

  /**
   * Lets a hanging call go: a {@link Steer#HANG} call does what {@code then} says, a {@link
   * Steer#BUY_THEN_HANG} call answers its item (or, with {@link Steer#DROP_AFTER_BUYING}, drops).
   */
  void release(Call call, Steer then) {
    call.release.complete(then);
  }

  /** Refuses {@code order}'s calls still hanging: its scenario is over. */
  void abandon(String order) {
    calls(order).forEach(call -> call.release.complete(Steer.REFUSE));
  }

  private void handle(HttpExchange exchange) {
    try (exchange) {
      if (!exchange.getRequestURI().getPath().equals("/purchases")) {
        answer(exchange, 404, error("not_found", "the provider serves POST /purchases", "false"));
        return;
      }
      if (!exchange.getRequestMethod().equals("POST")) {
        answer(exchange, 405, error("method_not_allowed", "POST /purchases only", "false"));
        return;
      }
      byte[] body = exchange.getRequestBody().readNBytes(MAX_BODY + 1);
      if (body.length > MAX_BODY) {
        answer(exchange, 413, error("too_large", "a purchase body is at most 64 KiB", "false"));
        return;
      }
      String key = exchange.getRequestHeaders().getFirst("Idempotency-Key");
      if (key != null && (key.isEmpty() || key.length() > MAX_KEY)) {
        answer(
            exchange, 400, error("bad_request", "Idempotency-Key: 1 to 255 characters", "false"));
        return;
      }
      JsonObject request;
      String order;
      try {
        request =
            JsonParser.parseString(new String(body, StandardCharsets.UTF_8)).getAsJsonObject();
        order = text(request, "order");
      } catch (JsonParseException | IllegalStateException | UnsupportedOperationException e) {
        answer(exchange, 400, error("bad_request", "the body is not a JSON object", "false"));
        return;
      }
      if (order == null || order.isEmpty() || order.length() > MAX_KEY) {
        answer(exchange, 400, error("bad_request", "no order (1 to 255 characters)", "false"));
        return;
      }
      String product = text(request, "product");
      int quantity = request.has("quantity") ? quantity(request.get("quantity")) : -1;
      Call call = arrive(order, key, product, quantity);
      try {
        steer(exchange, call, call.steer);
      } catch (IOException e) {
        call.what = call.what + " (the caller had gone)";
      } finally {
        exchange.close(); // sent (closing twice is harmless) before close() may stop the server
        listenerOf(call).finished(call);
        call.done.complete(null);
      }
    } catch (IOException e) {
      // the caller went away (a crashed endpoint): nothing to answer
    }
  }

  private Call arrive(String order, String key, String product, int quantity) {
    Call call;
    Plan plan;
    synchronized (this) {
      plan = plans.computeIfAbsent(order, o -> new Plan(true, List.of(), new Listener() {}));
      Steer steer = plan.script.isEmpty() ? Steer.SUCCEED : plan.script.poll();
      call = new Call(plan.calls.size() + 1, order, key, product, quantity, steer);
      plan.calls.add(call);
      if (steer == Steer.HANG || steer == Steer.BUY_THEN_HANG) {
        hanging.add(call);
        if (closed) {
          call.release.complete(Steer.REFUSE);
        }
      }
      plan.listener.arrived(call); // before anyone waiting for the call hears of it
      notifyAll();
    }
    return call;
  }

  private synchronized Listener listenerOf(Call call) {
    return plans.get(call.order).listener;
  }

  private void steer(HttpExchange exchange, Call call, Steer steer) throws IOException {
    switch (steer) {
      case SUCCEED -> {
        Item item = buy(call);
        call.what = bought(call, item) + ", answered 200";
        answerJson(exchange, call, item);
      }
      case REFUSE -> {
        call.what = "refused with 402, nothing bought";
        answer(exchange, 402, error("refused", "the provider refused the purchase", "false"));
      }
      case SERVER_ERROR_AFTER_BUYING -> {
        Item item = buy(call);
        call.what = bought(call, item) + ", then answered 503 (outcome unknown)";
        answer(exchange, 503, error("unavailable", "the provider failed", "\"unknown\""));
      }
      case DROP_AFTER_BUYING -> {
        Item item = buy(call);
        call.what = bought(call, item) + ", then dropped the connection";
        exchange.close(); // no headers sent: the JDK server drops the connection
      }
      case HANG -> {
        Steer then = awaitRelease(call);
        steer(
            exchange,
            call,
            then == Steer.HANG || then == Steer.BUY_THEN_HANG ? Steer.REFUSE : then);
        call.what = "hung, then " + call.what;
      }
      case BUY_THEN_HANG -> {
        Item item = buy(call);
        String bought = bought(call, item);
        call.what = bought + ", holding the answer";
        Steer then = awaitRelease(call);
        if (then == Steer.DROP_AFTER_BUYING) {
          call.what = bought + ", held the answer, then dropped the connection";
          exchange.close(); // no headers sent: the JDK server drops the connection
        } else {
          call.what = bought + ", held the answer, then answered 200";
          answerJson(exchange, call, item);
        }
      }
    }
  }

  private Steer awaitRelease(Call call) {
    try {
      return call.release.get(HANG_LIMIT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Steer.REFUSE;
    } catch (ExecutionException | TimeoutException e) {
      return Steer.REFUSE;
    }
  }

  private synchronized Item buy(Call call) {
    Plan plan = plans.get(call.order);
    if (plan.honourKeys && call.key != null) {
      Item earlier = byKey.get(call.key);
      if (earlier != null && earlier.order().equals(call.order)) {
        return earlier;
      }
    }
    Item item = new Item("item_" + items.incrementAndGet(), call.order);
    plan.purchases++;
    call.bought = true;
    if (call.key != null) {
      byKey.putIfAbsent(call.key, item);
    }
    plan.listener.bought(call); // before the answer, so a check on it precedes what it causes
    return item;
  }

  private static String bought(Call call, Item item) {
    return call.bought ? "bought " + item.id() : "replayed " + item.id() + " for its key";
  }

  private void answerJson(HttpExchange exchange, Call call, Item item) throws IOException {
    JsonObject json = new JsonObject();
    json.addProperty("item_id", item.id());
    json.addProperty("payload", "esim activation code for " + call.order);
    if (!call.bought) {
      exchange.getResponseHeaders().add("Idempotent-Replayed", "true");
    }
    answer(exchange, 200, json.toString());
  }

  private static void answer(HttpExchange exchange, int status, String json) throws IOException {
    byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", "application/json");
    exchange.sendResponseHeaders(status, bytes.length);
    exchange.getResponseBody().write(bytes);
  }

  private static String error(String code, String message, String bought) {
    return "{\"error\":\"" + code + "\",\"message\":\"" + message + "\",\"bought\":" + bought + "}";
  }

  private static String text(JsonObject object, String member) {
    JsonElement element = object.get(member);
    return element == null || !element.isJsonPrimitive() ? null : element.getAsString();
  }

  private static int quantity(JsonElement element) {
    try {
      return element.getAsInt();
    } catch (RuntimeException e) {
      return -1;
    }
  }

  /**
   * Refuses every call still hanging, waits until the refusals are sent (at most {@link
   * #CLOSE_LIMIT}), and stops.
   */
  @Override
  public void close() {
    List<Call> refused;
    synchronized (this) {
      closed = true;
      refused = List.copyOf(hanging);
    }
    refused.forEach(call -> call.release.complete(Steer.REFUSE));
    long deadline = System.nanoTime() + CLOSE_LIMIT.toNanos();
    for (Call call : refused) {
      try {
        call.done.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      } catch (ExecutionException | TimeoutException e) {
        break;
      }
    }
    server.stop(0);
    executor.shutdownNow();
  }
}
