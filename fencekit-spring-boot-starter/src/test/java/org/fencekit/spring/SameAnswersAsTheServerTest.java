package org.fencekit.spring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.fencekit.fulfilment.CheckoutEvent;
import org.fencekit.fulfilment.PaymentStatus;
import org.fencekit.server.StripeDeliveries;
import org.fencekit.server.WebhookServer;
import org.fencekit.store.OrderSnapshot;
import org.fencekit.store.OrderStore;
import org.fencekit.store.sqlite.SqliteOrderStore;
import org.fencekit.webhook.SettingNames;
import org.fencekit.webhook.WebhookCore;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The starter answers every delivery and landing as fencekit's own server does: the same requests,
 * hostile and not, sent to both, get the same status, the same one line of JSON and the same Allow
 * and Retry-After headers.
 */
@SpringBootTest(
    classes = StarterContract.TestApplication.class,
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@DirtiesContext
class SameAnswersAsTheServerTest {

  private static OrderStore serverStore;
  private static WebhookServer server;

  @LocalServerPort int port;

  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  @DynamicPropertySource
  static void properties(DynamicPropertyRegistry properties) throws IOException {
    Path directory = Files.createTempDirectory("fencekit-parity");
    properties.add("fencekit.store", () -> "sqlite:" + directory.resolve("starter.db"));
    properties.add(
        "spring.autoconfigure.exclude", () -> StarterContract.DATA_SOURCE_AUTO_CONFIGURATION);
    StarterContract.stripe(properties);
  }

  @BeforeAll
  static void startTheServer() throws IOException {
    Path directory = Files.createTempDirectory("fencekit-parity-server");
    serverStore = SqliteOrderStore.builder(directory.resolve("server.db")).build();
    server =
        WebhookServer.builder(serverStore, new RecordingProvider())
            .host("127.0.0.1")
            .port(0)
            .secret(StripeDeliveries.SECRET)
            .successPage(
                org.fencekit.webhook.SuccessPage.client(
                    "key",
                    "sk_test_fencekit_fake",
                    "base",
                    "http://127.0.0.1:" + StarterContract.STRIPE.port()))
            .build()
            .start();
  }

  @AfterAll
  static void stopTheServer() {
    server.close();
    serverStore.close();
  }

  /**
   * One request: its method, the route (webhook or success page), its headers and its body; and,
   * where the issue that added it fixed the answer, the status and error both must give.
   */
  private record Case(
      String name,
      String method,
      boolean webhook,
      String query,
      Map<String, String> headers,
      byte[] body,
      String expected) {

    Case(
        String name,
        String method,
        boolean webhook,
        String query,
        Map<String, String> headers,
        byte[] body) {
      this(name, method, webhook, query, headers, body, null);
    }
  }

  private static Case post(String name, Map<String, String> headers, byte[] body) {
    return new Case(name, "POST", true, "", headers, body);
  }

  /** A signed delivery of {@code json}, which both must answer {@code expected}. */
  private static Case signedAs(String name, String json, String expected) {
    Map<String, String> signature =
        Map.of(
            "Stripe-Signature",
            StripeDeliveries.signatureAt(
                Clock.systemUTC().instant().getEpochSecond(), json, StripeDeliveries.SECRET));
    return new Case(name, "POST", true, "", signature, utf8(json), expected);
  }

  /** The event JSON of a paid session, its root and its session changed by {@code edit}. */
  private static String edited(String sessionId, java.util.function.Consumer<JsonObject> edit) {
    OrderSnapshot order =
        new OrderSnapshot(sessionId, "esim-eu-5gb", 1, "buyer@example.com", 1500, "eur");
    JsonObject root =
        JsonParser.parseString(
                StripeDeliveries.json(
                    CheckoutEvent.completed("evt_" + sessionId, PaymentStatus.PAID, order)))
            .getAsJsonObject();
    edit.accept(root);
    return root.toString();
  }

  private static JsonObject session(JsonObject root) {
    return root.getAsJsonObject("data").getAsJsonObject("object");
  }

  private static JsonObject metadata(JsonObject root) {
    return session(root).getAsJsonObject("metadata");
  }

  private static Map<String, String> signed(byte[] body, String... secrets) {
    return Map.of(
        "Stripe-Signature",
        StripeDeliveries.signatureAt(
            Clock.systemUTC().instant().getEpochSecond(),
            new String(body, StandardCharsets.ISO_8859_1),
            secrets));
  }

  private static byte[] utf8(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  private List<Case> cases() {
    OrderSnapshot order =
        new OrderSnapshot("cs_test_parity", "esim-eu-5gb", 1, "buyer@example.com", 1500, "eur");
    byte[] event =
        utf8(
            StripeDeliveries.json(
                CheckoutEvent.completed("evt_parity", PaymentStatus.PAID, order)));
    byte[] notJson = utf8("{\"id\": \"evt_1\", \"type\": ");
    byte[] notUtf8 = {'{', '"', 'i', 'd', '"', ':', '"', (byte) 0xC3, (byte) 0x28, '"', '}'};
    byte[] array = utf8("[1,2,3]");
    byte[] noType = utf8("{\"id\":\"evt_1\"}");
    byte[] other = utf8("{\"id\":\"evt_inv\",\"type\":\"invoice.paid\",\"data\":{\"object\":{}}}");
    byte[] noSession =
        utf8("{\"id\":\"evt_ns\",\"type\":\"checkout.session.completed\",\"data\":{\"object\":7}}");
    byte[] unmappable =
        utf8(
            "{\"id\":\"evt_um\",\"type\":\"checkout.session.completed\",\"data\":{\"object\":"
                + "{\"id\":\"cs_test_um\",\"object\":\"checkout.session\",\"payment_status\":"
                + "\"paid\",\"metadata\":{}}}}");
    byte[] large = new byte[(1 << 20) + 1000];
    java.util.Arrays.fill(large, (byte) ' ');
    List<Case> cases = new ArrayList<>();
    cases.add(post("unsigned", Map.of(), event));
    cases.add(post("blank signature", Map.of("Stripe-Signature", " "), event));
    cases.add(post("garbage signature", Map.of("Stripe-Signature", "t=x,v1=zz"), event));
    cases.add(post("another secret", signed(event, "whsec_someone_else"), event));
    cases.add(
        post(
            "stale",
            Map.of(
                "Stripe-Signature",
                StripeDeliveries.signatureAt(
                    1_000_000_000L,
                    new String(event, StandardCharsets.UTF_8),
                    StripeDeliveries.SECRET)),
            event));
    cases.add(post("signed, not JSON", signed(notJson, StripeDeliveries.SECRET), notJson));
    cases.add(post("signed, not UTF-8", signed(notUtf8, StripeDeliveries.SECRET), notUtf8));
    cases.add(post("signed, an array", signed(array, StripeDeliveries.SECRET), array));
    cases.add(post("signed, no type", signed(noType, StripeDeliveries.SECRET), noType));
    cases.add(post("signed, another event", signed(other, StripeDeliveries.SECRET), other));
    cases.add(post("signed, no session", signed(noSession, StripeDeliveries.SECRET), noSession));
    cases.add(post("signed, unmappable", signed(unmappable, StripeDeliveries.SECRET), unmappable));
    cases.add(post("too large", Map.of(), large));
    cases.add(post("signed", signed(event, StripeDeliveries.SECRET), event));
    cases.add(post("signed again", signed(event, StripeDeliveries.SECRET), event));
    cases.add(new Case("GET on the webhook", "GET", true, "", Map.of(), null));
    cases.add(new Case("PUT on the webhook", "PUT", true, "", Map.of(), utf8("{}")));
    cases.add(new Case("landing without id", "GET", false, "", Map.of(), null));
    cases.add(new Case("landing, bad id", "GET", false, "?session_id=evil%0A1", Map.of(), null));
    cases.add(
        new Case("landing, unknown", "GET", false, "?session_id=cs_test_nope", Map.of(), null));
    cases.add(new Case("POST on the landing", "POST", false, "", Map.of(), utf8("{}")));
    // issue 39: not a v1 event, bounds, strict numbers, other methods
    String unsupported = "400 unsupported_event";
    String notMapped = "500 unmappable_session";
    cases.add(
        signedAs(
            "v2 event",
            edited("cs_test_v2", e -> e.addProperty("object", "v2.core.event")),
            unsupported));
    cases.add(signedAs("{}", "{}", "400 malformed_json"));
    cases.add(
        signedAs(
            "created a string",
            edited("cs_test_created", e -> e.addProperty("created", "2024-09-17")),
            unsupported));
    cases.add(
        signedAs(
            "300-char event id",
            edited("cs_test_evtid", e -> e.addProperty("id", "evt_" + "x".repeat(296))),
            unsupported));
    for (String quantity : List.of("+2", "\uff12", "2147483647")) {
      cases.add(
          signedAs(
              "quantity " + quantity,
              edited(
                  "cs_test_q" + quantity.hashCode(),
                  e -> metadata(e).addProperty("quantity", quantity)),
              notMapped));
    }
    cases.add(
        signedAs(
            "256-char product id",
            edited("cs_test_pid", e -> metadata(e).addProperty("product_id", "p".repeat(256))),
            notMapped));
    for (String method : List.of("OPTIONS", "HEAD", "PATCH", "DELETE", "TRACE")) {
      cases.add(
          new Case(
              method + " on the webhook",
              method,
              true,
              "",
              Map.of(),
              null,
              method.equals("HEAD") ? "405 " : "405 method_not_allowed"));
    }
    cases.add(
        new Case(
            "OPTIONS on the landing",
            "OPTIONS",
            false,
            "",
            Map.of(),
            null,
            "405 method_not_allowed"));
    cases.add(
        new Case(
            "unsigned, accepting only HTML",
            "POST",
            true,
            "",
            Map.of("Accept", "text/html"),
            event,
            "400 missing_signature"));
    return cases;
  }

  private HttpResponse<String> send(int to, String path, Case c) {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + to + path + c.query()))
            .timeout(Duration.ofSeconds(30))
            .method(
                c.method(),
                c.body() == null
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofByteArray(c.body()));
    c.headers().forEach(request::header);
    try {
      return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new UncheckedIOException(c.name() + ": " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private static Map<String, String> seen(HttpResponse<String> response) {
    Map<String, String> seen = new LinkedHashMap<>();
    seen.put("status", String.valueOf(response.statusCode()));
    seen.put(
        "body",
        response
            .body()
            .replace(FencekitAutoConfiguration.SETTING_NAMES.secret(), SettingNames.SERVER.secret())
            // a stale signature's distance from now grows by a second between the two requests
            .replaceAll(
                "is \\d+ s (behind|ahead of) the server's clock", "is N s $1 the server's clock"));
    seen.put("content-type", response.headers().firstValue("Content-Type").orElse(""));
    for (String header : List.of("Allow", "Retry-After")) {
      seen.put(header, response.headers().firstValue(header).orElse(""));
    }
    return seen;
  }

  /**
   * Sends {@code head} (a request whose declared body has not all come) and keeps the connection
   * open, as a client still sending would; the status line and the JSON line that came within 30 s.
   * The body never comes, so any answer at all refused it before it arrived, and one that waited
   * for it would be another (a 408) or none: the limit only needs to outlast a slow first request
   * to the starter, which on a loaded machine can take more than the 3 s this was (HostileInputTest
   * raised the same wait to 10 s for the server).
   */
  private static String answerWhileSending(int to, String head) throws IOException {
    try (java.net.Socket socket = new java.net.Socket("127.0.0.1", to)) {
      socket.setSoTimeout(30_000);
      socket.getOutputStream().write(head.getBytes(StandardCharsets.ISO_8859_1));
      socket.getOutputStream().flush();
      java.io.BufferedReader in =
          new java.io.BufferedReader(
              new java.io.InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
      String status = in.readLine();
      String line;
      while ((line = in.readLine()) != null && !line.isEmpty()) {
        // the headers
      }
      return status + " " + in.readLine();
    } catch (java.net.SocketTimeoutException e) {
      return "no answer within 30 s";
    }
  }

  @Test
  void aDeclaredBodyOverTheLimitIsRefusedAtOnceByBoth() throws IOException {
    String head =
        "POST %s HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: "
            + (WebhookCore.MAX_BODY_BYTES + 1)
            + "\r\n\r\n0123456789";
    String fromServer = answerWhileSending(server.port(), head.formatted("/webhook"));
    String fromStarter = answerWhileSending(port, head.formatted("/stripe/webhook"));
    assertTrue(fromServer.startsWith("HTTP/1.1 413 "), fromServer);
    assertTrue(fromServer.contains("\"error\":\"body_too_large\""), fromServer);
    assertEquals(
        fromServer.substring(fromServer.indexOf('{')),
        fromStarter.substring(Math.max(0, fromStarter.indexOf('{'))),
        fromStarter);
  }

  @Test
  void everyRequestIsAnsweredAsTheServerAnswersIt() {
    for (Case c : cases()) {
      Map<String, String> fromServer =
          seen(send(server.port(), c.webhook() ? "/webhook" : "/checkout/success", c));
      Map<String, String> fromStarter =
          seen(send(port, c.webhook() ? "/stripe/webhook" : "/checkout/success", c));
      assertEquals(fromServer, fromStarter, c.name());
      if (c.expected() != null) {
        String body = fromStarter.get("body");
        String error =
            body.isEmpty()
                ? ""
                : JsonParser.parseString(body).getAsJsonObject().get("error").getAsString();
        assertEquals(c.expected(), fromStarter.get("status") + " " + error, c.name() + ": " + body);
      }
      if (c.method().equals("HEAD")) {
        continue;
      }
      assertTrue(fromStarter.get("body").endsWith("}\n"), c.name() + ": one line of JSON");
      if (c.name().equals("another secret")) {
        assertTrue(
            send(port, "/stripe/webhook", c).body().contains("fencekit.stripe.webhook-secret"),
            "the starter names its own property");
      }
    }
  }
}
