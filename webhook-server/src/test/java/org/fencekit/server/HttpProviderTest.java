package org.fencekit.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.fencekit.fulfilment.Ownership;
import org.fencekit.fulfilment.ProviderException;
import org.fencekit.fulfilment.Purchase;
import org.fencekit.store.ClaimId;
import org.fencekit.store.Item;
import org.fencekit.store.OrderSnapshot;
import org.fencekit.testsupport.LoopbackPorts;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link HttpProvider} against a real provider on a loopback port, answering each way the protocol
 * allows and some ways it does not: every answer maps to an item, "nothing bought" or "outcome
 * unknown", never hangs past its timeout, and quotes the provider's error text bounded and escaped.
 */
@Timeout(30) // a call that hangs fails its test instead of the build
class HttpProviderTest {

  private static final Duration TIMEOUT = Duration.ofSeconds(10);
  private static final Duration SHORT = Duration.ofMillis(500);

  /**
   * How long a call that must end at its {@link #SHORT} timeout, or at once when interrupted, may
   * take: generous for a loaded machine (5 s left little room for a stall), and still well below
   * the 60 s a call that ignored its timeout or the interrupt would wait for the provider (and the
   * class's 30 s timeout).
   */
  private static final Duration PROMPTLY = Duration.ofSeconds(20);

  private static final OrderSnapshot ORDER =
      new OrderSnapshot("cs_test_http1", "esim-eu-5gb", 3, "buyer@example.com", 4500, "eur");

  private HttpServer server;
  private final BlockingQueue<Request> requests = new LinkedBlockingQueue<>();
  private volatile HttpHandler answer;
  private final CountDownLatch release = new CountDownLatch(1);

  /** One request as the provider received it. */
  private record Request(
      String method, String path, String contentType, List<String> keys, String body) {}

  @BeforeEach
  void startProvider() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.setExecutor(Executors.newCachedThreadPool());
    server.createContext(
        "/",
        exchange -> {
          String body =
              new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
          requests.add(
              new Request(
                  exchange.getRequestMethod(),
                  exchange.getRequestURI().getPath(),
                  exchange.getRequestHeaders().getFirst("Content-Type"),
                  exchange.getRequestHeaders().getOrDefault("Idempotency-Key", List.of()),
                  body));
          answer.handle(exchange);
        });
    server.start();
  }

  @AfterEach
  void stopProvider() {
    release.countDown();
    server.stop(0);
    ((ExecutorService) server.getExecutor()).shutdownNow();
  }

  private URI base() {
    return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
  }

  private static HttpHandler json(int status, String body) {
    return exchange -> send(exchange, status, body);
  }

  private static void send(HttpExchange exchange, int status, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", "application/json");
    exchange.sendResponseHeaders(status, bytes.length == 0 ? -1 : bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }

  private static Purchase purchase(OrderSnapshot order) {
    Ownership owned =
        new Ownership() {
          private final ClaimId claim = new ClaimId(1, ClaimId.newNonce());

          @Override
          public ClaimId claimId() {
            return claim;
          }

          @Override
          public boolean owned() {
            return true;
          }
        };
    return new Purchase(order, Purchase.idempotencyKeyFor(order.sessionId()), owned);
  }

  private ProviderException refusedBy(HttpHandler handler, Duration timeout) {
    answer = handler;
    HttpProvider provider = new HttpProvider(base(), timeout);
    return assertThrows(ProviderException.class, () -> provider.buy(purchase(ORDER)));
  }

  @Test
  void a200IsTheItemAndTheRequestCarriesTheKeyAndTheOrder() throws Exception {
    answer = json(200, "{\"item_id\":\"esim_42\",\"payload\":\"LPA:1$smdp$CODE\"}");
    Item item = new HttpProvider(base(), TIMEOUT).buy(purchase(ORDER));
    assertEquals(new Item("esim_42", "LPA:1$smdp$CODE"), item);
    Request request = requests.take();
    assertEquals("POST", request.method());
    assertEquals("/purchases", request.path());
    assertTrue(request.contentType().startsWith("application/json"), request.contentType());
    assertEquals(List.of("fencekit-order-cs_test_http1"), request.keys());
    JsonObject body = JsonParser.parseString(request.body()).getAsJsonObject();
    assertEquals("cs_test_http1", body.get("order").getAsString());
    assertEquals("esim-eu-5gb", body.get("product").getAsString());
    assertEquals(3, body.get("quantity").getAsInt());
    assertEquals(3, body.size(), request.body());
  }

  @Test
  void aBaseUrlWithAPathOrATrailingSlashPostsUnderIt() throws Exception {
    answer = json(200, "{\"item_id\":\"esim_43\",\"payload\":null}");
    for (String base : List.of(base() + "/", base() + "/provider/v1", base() + "/provider/v1/")) {
      Item item = new HttpProvider(URI.create(base), TIMEOUT).buy(purchase(ORDER));
      assertEquals(new Item("esim_43", null), item);
      String expected = base.contains("/provider") ? "/provider/v1/purchases" : "/purchases";
      assertEquals(expected, requests.take().path(), base);
    }
  }

  @Test
  void aKeyAndAnOrderThatAreNotPlainTravelAsTheyAre() throws Exception {
    answer = json(200, "{\"item_id\":\"esim_44\",\"payload\":\"x\"}");
    OrderSnapshot odd =
        new OrderSnapshot("cs \"quoted\" \u00e9\u2028", "p\\1", 1, null, 100, "eur");
    new HttpProvider(base(), TIMEOUT).buy(purchase(odd));
    Request request = requests.take();
    JsonObject body = JsonParser.parseString(request.body()).getAsJsonObject();
    assertEquals(odd.sessionId(), body.get("order").getAsString());
    assertEquals("p\\1", body.get("product").getAsString());
    assertEquals(List.of(Purchase.idempotencyKeyFor(odd.sessionId())), request.keys());
  }

  @Test
  void every4xxIsNothingBoughtAndQuotesTheProvidersCodeAndMessage() {
    for (int status : List.of(400, 402, 409, 422)) {
      ProviderException refused =
          refusedBy(
              json(
                  status,
                  "{\"error\":\"out_of_stock\",\"message\":\"no eSIM left for esim-eu-5gb\","
                      + "\"bought\":false}"),
              TIMEOUT);
      assertTrue(refused.nothingBought(), status + ": " + refused.getMessage());
      assertTrue(refused.getMessage().contains(String.valueOf(status)), refused.getMessage());
      assertTrue(refused.getMessage().contains("out_of_stock"), refused.getMessage());
      assertTrue(
          refused.getMessage().contains("no eSIM left for esim-eu-5gb"), refused.getMessage());
    }
  }

  @Test
  void every5xxIsOutcomeUnknown() {
    for (int status : List.of(500, 502, 503, 504)) {
      ProviderException unknown =
          refusedBy(
              json(
                  status,
                  "{\"error\":\"upstream\",\"message\":\"the carrier did not answer\","
                      + "\"bought\":\"unknown\"}"),
              TIMEOUT);
      assertFalse(unknown.nothingBought(), status + ": " + unknown.getMessage());
      assertTrue(unknown.getMessage().contains(String.valueOf(status)), unknown.getMessage());
      assertTrue(unknown.getMessage().contains("the carrier did not answer"), unknown.getMessage());
    }
  }

  @Test
  void a2xxWithoutAnItemOrARedirectIsOutcomeUnknownNotASuccessOrARefusal() {
    List<HttpHandler> odd =
        List.of(
            json(200, "not json"),
            json(200, "{\"payload\":\"no id\"}"),
            json(200, "{\"item_id\":42}"),
            json(200, "{\"item_id\":\"\"}"),
            json(200, "{\"item_id\":\"" + "x".repeat(300) + "\"}"),
            json(200, "[{\"item_id\":\"esim_1\"}]"),
            json(200, "{\"item_id\":\"esim_1\"} trailing"),
            json(200, "[".repeat(100_000)),
            json(200, ""),
            json(204, ""),
            exchange -> {
              exchange.getResponseHeaders().set("Location", base() + "/elsewhere");
              send(exchange, 307, "");
            });
    for (HttpHandler handler : odd) {
      ProviderException unknown = refusedBy(handler, TIMEOUT);
      assertFalse(unknown.nothingBought(), unknown.getMessage());
    }
    assertTrue(
        requests.stream().noneMatch(r -> r.path().equals("/elsewhere")),
        "a redirect was followed: the purchase may have been posted twice");
  }

  @Test
  void aProviderThatNeverAnswersIsOutcomeUnknownAtTheTimeout() {
    HttpHandler hang =
        exchange -> {
          try {
            release.await(60, TimeUnit.SECONDS);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        };
    long start = System.nanoTime();
    ProviderException unknown = refusedBy(hang, SHORT);
    Duration took = Duration.ofNanos(System.nanoTime() - start);
    assertFalse(unknown.nothingBought(), unknown.getMessage());
    assertTrue(unknown.getMessage().contains("PT0.5S"), unknown.getMessage());
    assertTrue(took.compareTo(PROMPTLY) < 0, "took " + took);
  }

  @Test
  void aProviderThatSendsItsHeadersThenStallsIsOutcomeUnknownAtTheTimeout() {
    HttpHandler trickle =
        exchange -> {
          exchange.sendResponseHeaders(200, 1000);
          OutputStream out = exchange.getResponseBody();
          out.write("{\"item_id\":".getBytes(StandardCharsets.UTF_8));
          out.flush();
          try {
            release.await(60, TimeUnit.SECONDS);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        };
    long start = System.nanoTime();
    ProviderException unknown = refusedBy(trickle, SHORT);
    Duration took = Duration.ofNanos(System.nanoTime() - start);
    assertFalse(unknown.nothingBought(), unknown.getMessage());
    assertTrue(took.compareTo(PROMPTLY) < 0, "took " + took);
  }

  @Test
  void aDroppedConnectionOrAClosedPortIsOutcomeUnknown() throws Exception {
    try (ServerSocket dropper = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      Thread reader =
          new Thread(
              () -> {
                for (int i = 0; i < 2; i++) { // the client may retry an idempotent-looking request
                  try (Socket socket = dropper.accept()) {
                    socket.getInputStream().read(new byte[4096]); // the request, then hang up
                  } catch (IOException e) {
                    return;
                  }
                }
              });
      reader.setDaemon(true);
      reader.start();
      HttpProvider provider =
          new HttpProvider(URI.create("http://127.0.0.1:" + dropper.getLocalPort()), TIMEOUT);
      ProviderException dropped =
          assertThrows(ProviderException.class, () -> provider.buy(purchase(ORDER)));
      assertFalse(dropped.nothingBought(), dropped.getMessage());
    }
    HttpProvider closed =
        new HttpProvider(URI.create("http://127.0.0.1:" + LoopbackPorts.closed()), TIMEOUT);
    ProviderException refused =
        assertThrows(ProviderException.class, () -> closed.buy(purchase(ORDER)));
    assertFalse(refused.nothingBought(), refused.getMessage());
  }

  @Test
  void anInterruptedCallThrowsInterruptedExceptionPromptly() throws Exception {
    answer =
        exchange -> {
          try {
            release.await(60, TimeUnit.SECONDS);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        };
    HttpProvider provider = new HttpProvider(base(), Duration.ofSeconds(60));
    ExecutorService caller = Executors.newSingleThreadExecutor();
    try {
      Future<Item> call = caller.submit(() -> provider.buy(purchase(ORDER)));
      requests.take(); // the request is at the provider
      long start = System.nanoTime();
      caller.shutdownNow(); // interrupts the call
      try {
        call.get(PROMPTLY.toSeconds(), TimeUnit.SECONDS);
        fail("an interrupted call returned an item");
      } catch (java.util.concurrent.ExecutionException e) {
        assertTrue(e.getCause() instanceof InterruptedException, e.getCause().toString());
      }
      Duration took = Duration.ofNanos(System.nanoTime() - start);
      assertTrue(took.compareTo(PROMPTLY) < 0, "took " + took);
    } finally {
      caller.shutdownNow();
    }
  }

  @Test
  void aHugeOrHostileErrorBodyIsQuotedBoundedAndEscaped() {
    String hostile =
        "{\"error\":\"bad\\u001b[31mcode\\n"
            + "y".repeat(5_000)
            + "\",\"message\":\"line one\\nline two \\u0007 mail jane.doe@example.com "
            + "z".repeat(100_000)
            + "\",\"bought\":false}";
    ProviderException refused = refusedBy(json(409, hostile), TIMEOUT);
    assertTrue(refused.nothingBought(), refused.getMessage());
    String message = refused.getMessage();
    assertTrue(message.length() < 1_000, "message of " + message.length() + " chars");
    assertFalse(message.contains("\n") || message.contains("\u001b") || message.contains("\u0007"));
    assertFalse(message.contains("jane.doe@example.com"), message);
    ProviderException notJson = refusedBy(json(422, "<html>\n" + "w".repeat(3_000_000)), TIMEOUT);
    assertTrue(notJson.nothingBought(), notJson.getMessage());
    assertTrue(notJson.getMessage().length() < 1_000, notJson.getMessage());
    assertFalse(notJson.getMessage().contains("\n"), notJson.getMessage());
    ProviderException huge =
        refusedBy(json(200, "{\"item_id\":\"" + "q".repeat(3_000_000)), TIMEOUT);
    assertFalse(huge.nothingBought(), huge.getMessage());
    assertTrue(huge.getMessage().length() < 1_000, "message of " + huge.getMessage().length());
  }

  @Test
  void aBadBaseUrlIsRefusedNamingTheOption() {
    for (String bad :
        List.of(
            "",
            "127.0.0.1:9099",
            "ftp://127.0.0.1/",
            "http://",
            "http:///purchases",
            "http://user:secret@127.0.0.1:9099",
            "http://127.0.0.1:9099/?token=1",
            "http://127.0.0.1:9099/#top",
            "http://127.0.0.1:9099/a b",
            "file:///etc/passwd")) {
      IllegalArgumentException e =
          assertThrows(
              IllegalArgumentException.class,
              () -> new HttpProvider("FENCEKIT_PROVIDER_URL (or --provider-url)", bad, TIMEOUT),
              bad);
      assertTrue(e.getMessage().contains("--provider-url"), e.getMessage());
      assertTrue(e.getMessage().contains("http://127.0.0.1:9099"), "no example: " + e.getMessage());
      assertFalse(e.getMessage().contains("secret"), "a credential echoed: " + e.getMessage());
    }
    assertThrows(IllegalArgumentException.class, () -> new HttpProvider(base(), Duration.ZERO));
  }

  @Test
  void itsDescriptionNamesWhereItPostsAndItsTimeout() {
    String described = new HttpProvider(base(), TIMEOUT).toString();
    assertTrue(described.contains(base() + "/purchases"), described);
    assertTrue(described.contains("PT10S"), described);
  }
}
