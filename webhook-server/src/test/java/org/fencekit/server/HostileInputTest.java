package org.fencekit.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.zip.GZIPOutputStream;
import org.fencekit.fulfilment.Provider;
import org.fencekit.fulfilment.scenarios.ScenarioRun;
import org.fencekit.history.ManualClock;
import org.fencekit.store.Item;
import org.fencekit.store.memory.MemoryOrderStore;
import org.fencekit.webhook.Untrusted;
import org.fencekit.webhook.WebhookCore;
import org.junit.jupiter.api.Test;

/**
 * A generated corpus of hostile requests thrown at a running server over real sockets: signature
 * headers of every shape, bodies of every JSON shape (each unsigned, forged, signed with another
 * secret, stale either side, and signed), sizes, encodings, methods, paths and broken HTTP. Every
 * answer must be one of the README's (one line of JSON, the documented status and error, a bounded
 * one-line reason with no control character, email or exception text); nothing is claimed or
 * bought; the log holds no secret, no email, no raw control character and no stack trace.
 */
class HostileInputTest {

  private static final String EMAIL = "buyer@evil.example";
  private static final String OTHER_SECRET = "whsec_someone_else_entirely";
  private static final Set<String> PROTOCOL =
      Set.of(
          "400 bad_request",
          "414 bad_request",
          "431 bad_request",
          "501 bad_request",
          "505 bad_request");

  private final ManualClock clock = new ManualClock(ScenarioRun.START);
  private final long now = ScenarioRun.START.getEpochSecond();

  /** One hostile request and the answers the README allows for it. */
  private record Case(String name, byte[] request, Set<String> allowed) {}

  private final List<Case> cases = new ArrayList<>();

  /** A server on a free loopback port, on the test's clock and Stripe's test secret. */
  private WebhookServer started(MemoryOrderStore store, Provider provider) {
    return WebhookServer.builder(store, provider)
        .host("127.0.0.1")
        .port(0)
        .clock(clock)
        .secret(StripeDeliveries.SECRET)
        .build()
        .start();
  }

  @Test
  void everyHostileRequestGetsADocumentedJsonAnswerAndNothingIsClaimedBoughtOrLeaked()
      throws Exception {
    AtomicInteger purchases = new AtomicInteger();
    generate();
    Map<String, Integer> byClass = new TreeMap<>();
    Map<String, Integer> countable = new TreeMap<>();
    List<String> wrong = new ArrayList<>();
    String metrics;
    String logged;
    try (CapturedLog log = CapturedLog.start();
        MemoryOrderStore store = new MemoryOrderStore(clock);
        WebhookServer server =
            started(
                store,
                purchase -> {
                  purchases.incrementAndGet();
                  return new Item("prov-" + purchases.get(), null);
                })) {
      long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      for (Case c : cases) {
        assertTrue(System.nanoTime() < deadline, "the corpus took over 60 s");
        RawHttp.Answer answer = RawHttp.exchange(server.port(), c.request());
        String seen = judge(c, answer);
        byClass.merge(seen, 1, Integer::sum);
        counted(countable, c, answer);
        if (!c.allowed().contains(seen)) {
          wrong.add(c.name() + ": expected " + c.allowed() + ", got " + answer);
        } else {
          String leak = leak(answer);
          if (leak != null) {
            wrong.add(c.name() + ": " + leak + " in " + answer);
          }
        }
      }
      metrics =
          RawHttp.exchange(server.port(), RawHttp.request("GET", "/metrics", Map.of(), null))
              .body();
      logged = log.text();
    }
    System.out.println(
        "HostileInputTest: " + cases.size() + " hostile requests, answers by class: " + byClass);
    assertTrue(
        wrong.isEmpty(),
        wrong.size()
            + " of "
            + cases.size()
            + " answers are not the documented ones:\n"
            + String.join("\n", wrong.subList(0, Math.min(60, wrong.size()))));
    assertEquals(0, purchases.get(), "a hostile request bought something");
    assertEquals(
        countable,
        answersIn(metrics),
        "fencekit.webhook.answers counts every answer to /webhook and every protocol error");
    assertTrue(!metrics.contains("fencekit_claims_total"), "a hostile request claimed an order");
    assertTrue(!logged.contains(EMAIL), "the log holds the customer's email");
    assertTrue(!logged.contains(StripeDeliveries.SECRET), "the log holds the signing secret");
    assertTrue(!logged.contains("\tat "), "the log holds a stack trace:\n" + logged);
    for (String line : logged.split("\n")) {
      assertTrue(
          longestRun(line).length() <= Untrusted.ID_LENGTH,
          "the log quotes a run of " + longestRun(line).length() + " chars: " + line);
    }
    for (char c : logged.toCharArray()) {
      assertTrue(
          !Character.isISOControl(c) || c == '\n' || c == '\r' || c == '\t',
          String.format("the log holds a raw U+%04X", (int) c));
    }
  }

  @Test
  void aDeclaredBodyOverTheLimitIsRefusedBeforeItArrives() throws Exception {
    try (MemoryOrderStore store = new MemoryOrderStore(clock);
        WebhookServer server = started(store, purchase -> new Item("prov-1", null))) {
      for (String signature : List.of("", "Stripe-Signature: t=1,v1=00\r\n")) {
        byte[] head =
            ("POST /webhook HTTP/1.1\r\nHost: x\r\n"
                    + signature
                    + "Content-Length: "
                    + (WebhookCore.MAX_BODY_BYTES + 1)
                    + "\r\n\r\n0123456789")
                .getBytes(StandardCharsets.ISO_8859_1);
        // the body never comes, so any answer refused it before it arrived; 3 s was too short for
        // a server's first answer in the newcomer's run, building two modules at a time
        RawHttp.Answer answer = RawHttp.answerWhileSending(server.port(), head, 10_000);
        assertEquals(
            413, answer.status(), "answered within 10 s by the declared length: " + answer);
        assertEquals("body_too_large", answer.kind(), answer.toString());
        assertEquals("close", answer.headers().get("connection"), answer.toString());
      }
      String metrics =
          RawHttp.exchange(server.port(), RawHttp.request("GET", "/metrics", Map.of(), null))
              .body();
      assertTrue(
          metrics.contains("fencekit_webhook_refusals_total{error=\"body_too_large\"} 2.0"),
          metrics);
    }
  }

  /** The answer's class: {@code "<status> <error or outcome>"}; {@code "<status> not-json"}. */
  private static String judge(Case c, RawHttp.Answer answer) {
    if (answer.status() == 0) {
      return "no answer";
    }
    if (c.name().startsWith("HEAD ")) {
      return answer.status() + " " + (answer.body().isEmpty() ? "head" : "head-with-body");
    }
    if (answer.status() == 200 && answer.body().startsWith("{\"status\":\"ok\"")) {
      return "200 ok";
    }
    String kind = answer.kind();
    String type = answer.headers().getOrDefault("content-type", "");
    if (kind == null || !type.startsWith("application/json")) {
      return answer.status() + " not-json";
    }
    if (answer.status() == 405 && !answer.headers().containsKey("allow")) {
      return "405 without Allow";
    }
    return answer.status() + " " + kind;
  }

  /** What an answer must never hold, if it holds it. */
  private static String leak(RawHttp.Answer answer) {
    String body = answer.body();
    if (body.contains(EMAIL) || body.contains("evil.example")) {
      return "the customer's email";
    }
    if (body.contains(StripeDeliveries.SECRET) || body.contains("whsec_")) {
      return "a secret";
    }
    if (body.contains("Exception") || body.contains("\tat ")) {
      return "exception text";
    }
    JsonObject json = answer.json();
    if (json != null) {
      String reason = json.get("reason").getAsString();
      if (reason.length() > 600) {
        return "a reason of " + reason.length() + " chars";
      }
      String kind = answer.kind();
      int longest =
          "unmappable_session".equals(kind) || "unsupported_event".equals(kind)
              ? Untrusted.PREFIX_LENGTH
              : Untrusted.ID_LENGTH;
      String run = longestRun(reason);
      if (run.length() > longest) {
        return "a quoted run of " + run.length() + " chars (more than " + longest + ")";
      }
      for (char ch : reason.toCharArray()) {
        if (Character.isISOControl(ch)) {
          return String.format("a raw U+%04X in the reason", (int) ch);
        }
      }
    }
    return null;
  }

  /** The longest run of one character repeated (the corpus's long values are such runs). */
  private static String longestRun(String text) {
    int best = 0;
    int bestAt = 0;
    for (int i = 0, run = 0; i < text.length(); i++) {
      run = i > 0 && text.charAt(i) == text.charAt(i - 1) ? run + 1 : 1;
      if (run > best) {
        best = run;
        bestAt = i - run + 1;
      }
    }
    return text.substring(bestAt, bestAt + best);
  }

  /**
   * The answers {@code fencekit.webhook.answers} counts, by status: every answer to a request for
   * {@code /webhook}, and every answer Jetty gives before a request reaches a route.
   */
  private static Map<String, Integer> counted(Map<String, Integer> seen, Case c, RawHttp.Answer a) {
    String line = new String(c.request(), StandardCharsets.ISO_8859_1).split("\r\n", 2)[0];
    String[] parts = line.split(" ");
    // Jetty routes "http://host/webhook" and "/webhook;x=1" (a path parameter) to /webhook
    String target =
        parts.length > 1
            ? parts[1].replaceFirst("^https?://[^/]*", "").replaceFirst("[;?].*", "")
            : "";
    boolean webhook = target.equals("/webhook");
    if (a.status() != 0 && (webhook || "bad_request".equals(a.kind()))) {
      seen.merge(String.valueOf(a.status()), 1, Integer::sum);
    }
    return seen;
  }

  /** {@code fencekit_webhook_answers_total} by status, from the Prometheus text. */
  private static Map<String, Integer> answersIn(String metrics) {
    Map<String, Integer> counted = new TreeMap<>();
    java.util.regex.Matcher line =
        java.util.regex.Pattern.compile(
                "(?m)^fencekit_webhook_answers_total\\{status=\"(\\d+)\"\\} ([0-9.]+)$")
            .matcher(metrics);
    while (line.find()) {
      counted.put(line.group(1), (int) Double.parseDouble(line.group(2)));
    }
    return counted;
  }

  // ---- the corpus

  private void generate() throws IOException {
    signatureHeaders();
    bodies();
    sizesAndEncodings();
    methodsAndPaths();
    brokenHttp();
  }

  private static String hmac(String secret, long t, byte[] body) {
    return hmac(secret, String.valueOf(t), body);
  }

  private static String hmac(String secret, String t, byte[] body) {
    try {
      javax.crypto.Mac mac = javax.crypto.Mac.getInstance("HmacSHA256");
      mac.init(
          new javax.crypto.spec.SecretKeySpec(
              secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
      mac.update((t + ".").getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(mac.doFinal(body));
    } catch (java.security.GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  private String signed(byte[] body) {
    return "t=" + now + ",v1=" + hmac(StripeDeliveries.SECRET, now, body);
  }

  private void add(
      String name,
      String method,
      String path,
      Map<String, String> headers,
      byte[] body,
      Set<String> allowed) {
    cases.add(new Case(name, RawHttp.request(method, path, headers, body), allowed));
  }

  private void post(String name, byte[] body, String signature, String... allowed) {
    Map<String, String> headers = new LinkedHashMap<>();
    headers.put("Content-Type", "application/json");
    if (signature != null) {
      headers.put("Stripe-Signature", signature);
    }
    add(name, "POST", "/webhook", headers, body, Set.of(allowed));
  }

  /** A Checkout event that would be bought if it were signed. */
  private static byte[] buyable() {
    JsonObject session = session("cs_test_hostile_buyable");
    return event("evt_buyable", "checkout.session.completed", session)
        .getBytes(StandardCharsets.UTF_8);
  }

  private static JsonObject session(String id) {
    JsonObject session = new JsonObject();
    session.addProperty("id", id);
    session.addProperty("object", "checkout.session");
    session.addProperty("payment_status", "paid");
    session.addProperty("amount_total", 1500);
    session.addProperty("currency", "eur");
    JsonObject customer = new JsonObject();
    customer.addProperty("email", EMAIL);
    session.add("customer_details", customer);
    JsonObject metadata = new JsonObject();
    metadata.addProperty("product_id", "esim-eu-5gb");
    session.add("metadata", metadata);
    return session;
  }

  private static String event(String id, String type, Object data) {
    JsonObject root = new JsonObject();
    root.addProperty("id", id);
    root.addProperty("object", "event");
    root.addProperty("created", 1_757_851_200L);
    root.addProperty("type", type);
    if (data instanceof JsonObject session) {
      JsonObject wrapper = new JsonObject();
      wrapper.add("object", session);
      root.add("data", wrapper);
    }
    return root.toString();
  }

  private void signatureHeaders() {
    byte[] body = buyable();
    String good = hmac(StripeDeliveries.SECRET, now, body);
    String bad = "400 bad_signature";
    String stale = "400 stale_signature";
    Map<String, String> shapes = new LinkedHashMap<>();
    shapes.put("t=abc", "t=abc,v1=" + good);
    shapes.put("t empty", "t=,v1=" + good);
    shapes.put("t hex", "t=0x10,v1=" + good);
    shapes.put("t beyond a long", "t=99999999999999999999,v1=" + good);
    shapes.put("t negative", "t=-" + now + ",v1=" + hmac(StripeDeliveries.SECRET, "-" + now, body));
    shapes.put(
        "t with a plus", "t=+" + now + ",v1=" + hmac(StripeDeliveries.SECRET, "+" + now, body));
    shapes.put(
        "t decimal", "t=" + now + ".5,v1=" + hmac(StripeDeliveries.SECRET, now + ".5", body));
    String arabic = toArabicDigits(String.valueOf(now));
    shapes.put(
        "t in Arabic digits", "t=" + arabic + ",v1=" + hmac(StripeDeliveries.SECRET, arabic, body));
    shapes.put("no t", "v1=" + good);
    shapes.put("no v1", "t=" + now);
    shapes.put("v1 empty", "t=" + now + ",v1=");
    shapes.put("v1 not hex", "t=" + now + ",v1=zz");
    shapes.put("v1 uppercase", "t=" + now + ",v1=" + good.toUpperCase());
    shapes.put("v1 cut", "t=" + now + ",v1=" + good.substring(0, 63));
    shapes.put("only v0", "t=" + now + ",v0=" + good);
    shapes.put("V1", "t=" + now + ",V1=" + good);
    shapes.put("T", "T=" + now + ",v1=" + good);
    shapes.put("two t", "t=" + (now - 1000) + ",t=" + now + ",v1=" + good);
    shapes.put("commas", ",,,");
    shapes.put("equals", "=");
    shapes.put("t alone", "t");
    shapes.put("equals pairs", "==,==");
    shapes.put("6 kB of junk", "t=" + now + ",v1=" + "ab".repeat(3000));
    shapes.put("latin-1", "t=" + now + ",v1=\u00e9\u00e8");
    shapes.put("json", "{\"t\":" + now + ",\"v1\":\"" + good + "\"}");
    for (Map.Entry<String, String> shape : shapes.entrySet()) {
      post("signature header: " + shape.getKey(), body, shape.getValue(), bad);
    }
    post("signature header: blank", body, "   ", "400 missing_signature");
    post("signature header: BEL", body, "t=" + now + "\u0007,v1=" + good, bad, "400 bad_request");
    post("signature header: TAB inside", body, "t=" + now + ",\tv1=x", bad);
    for (long offset : new long[] {301, 3_600, 315_576_000}) {
      for (long sign : new long[] {-1, 1}) {
        long t = now + sign * offset;
        post(
            "timestamp " + (sign * offset) + " s off",
            body,
            "t=" + t + ",v1=" + hmac(StripeDeliveries.SECRET, t, body),
            stale);
      }
    }
    post("timestamp 0", body, "t=0,v1=" + hmac(StripeDeliveries.SECRET, 0, body), stale);
    Map<String, String> twice = new LinkedHashMap<>();
    twice.put("Stripe-Signature", "t=" + now + ",v1=" + "0".repeat(64));
    String raw =
        "POST /webhook HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
            + "Stripe-Signature: t="
            + now
            + ",v1="
            + "0".repeat(64)
            + "\r\n"
            + "Stripe-Signature: t="
            + now
            + ",v1="
            + "1".repeat(64)
            + "\r\n"
            + "Content-Length: "
            + body.length
            + "\r\n\r\n";
    cases.add(
        new Case(
            "two forged Stripe-Signature headers",
            concat(raw.getBytes(StandardCharsets.ISO_8859_1), body),
            Set.of(bad)));
  }

  private static String toArabicDigits(String digits) {
    StringBuilder out = new StringBuilder();
    for (char c : digits.toCharArray()) {
      out.append((char) ('\u0660' + (c - '0')));
    }
    return out.toString();
  }

  /** Each body: unsigned, forged, another secret, stale either side, and signed as Stripe does. */
  private void body(String name, byte[] body, String whenSigned) {
    post(name + " / unsigned", body, null, "400 missing_signature");
    post(name + " / forged", body, "t=" + now + ",v1=" + "ab".repeat(32), "400 bad_signature");
    post(
        name + " / another secret",
        body,
        "t=" + now + ",v1=" + hmac(OTHER_SECRET, now, body),
        "400 bad_signature");
    post(
        name + " / 301 s old",
        body,
        "t=" + (now - 301) + ",v1=" + hmac(StripeDeliveries.SECRET, now - 301, body),
        "400 stale_signature");
    post(
        name + " / 301 s ahead",
        body,
        "t=" + (now + 301) + ",v1=" + hmac(StripeDeliveries.SECRET, now + 301, body),
        "400 stale_signature");
    post(name + " / signed", body, signed(body), whenSigned);
  }

  private void body(String name, String json, String whenSigned) {
    body(name, json.getBytes(StandardCharsets.UTF_8), whenSigned);
  }

  private void bodies() throws IOException {
    String ignored = "200 ignored";
    String malformed = "400 malformed_json";
    String unmappable = "500 unmappable_session";
    // not handled, whatever their shape: acknowledged
    String v1 = "{\"object\":\"event\",\"created\":1757851200,";
    body(
        "invoice.paid",
        v1 + "\"id\":\"evt_1\",\"type\":\"invoice.paid\",\"data\":{\"object\":{}}}",
        ignored);
    body("other type, no data", v1 + "\"id\":\"evt_1\",\"type\":\"invoice.paid\"}", ignored);
    body(
        "other type, data a string",
        v1 + "\"id\":\"evt_1\",\"type\":\"invoice.paid\",\"data\":\"x\"}",
        ignored);
    body(
        "other type, data an array",
        v1 + "\"id\":\"evt_1\",\"type\":\"invoice.paid\",\"data\":[1]}",
        ignored);
    body("empty type", v1 + "\"id\":\"evt_1\",\"type\":\"\"}", ignored);
    body("blank type", v1 + "\"id\":\"evt_1\",\"type\":\"   \"}", ignored);
    // not a v1 event, or an event id out of its bounds: refused, whatever the type
    String unsupported = "400 unsupported_event";
    body("other type, empty id", v1 + "\"id\":\"\",\"type\":\"invoice.paid\"}", unsupported);
    body(
        "other type, 256-char id",
        event("evt_" + "x".repeat(252), "invoice.paid", null),
        unsupported);
    body(
        "Checkout type, 300-char id",
        event("evt_" + "x".repeat(296), "checkout.session.completed", session("cs_test_long")),
        unsupported);
    body(
        "other type, BEL and NUL in id",
        event("evt_\u0007\u0000", "invoice.paid", null),
        unsupported);
    for (Map.Entry<String, String> root :
        Map.of(
                "object v2.core.event", "\"object\":\"v2.core.event\",\"created\":1757851200",
                "no object", "\"created\":1757851200",
                "object a number", "\"object\":1,\"created\":1757851200",
                "no created", "\"object\":\"event\"",
                "created a string", "\"object\":\"event\",\"created\":\"1757851200\"",
                "created an ISO date",
                    "\"object\":\"event\",\"created\":\"2024-09-17T06:20:52.246Z\"",
                "created negative", "\"object\":\"event\",\"created\":-1",
                "created a fraction", "\"object\":\"event\",\"created\":1757851200.5",
                "created an exponent", "\"object\":\"event\",\"created\":1.7e9")
            .entrySet()) {
      JsonObject data = new JsonObject();
      data.add("object", session("cs_test_notv1"));
      String json =
          "{"
              + root.getValue()
              + ",\"id\":\"evt_notv1\",\"type\":\"checkout.session.completed\",\"data\":"
              + data
              + "}";
      body("a Checkout event, " + root.getKey(), json, unsupported);
    }
    body("5 kB type with NUL", event("evt_1", "x\u0000\u0007" + "y".repeat(5_000), null), ignored);
    body("type with an email", event("evt_1", EMAIL, null), ignored);
    body(
        "v2 thin event",
        "{\"id\":\"evt_test_65R9Ijk8\",\"object\":\"v2.core.event\",\"type\":"
            + "\"v1.billing.meter.error_report_triggered\",\"livemode\":false,\"created\":"
            + "\"2024-09-17T06:20:52.246Z\",\"related_object\":{\"id\":\"mtr_1\",\"type\":"
            + "\"billing.meter\",\"url\":\"/v1/billing/meters/mtr_1\"}}",
        unsupported);
    body(
        "a byte order mark, then an event",
        "\uFEFF" + event("evt_1", "invoice.paid", null),
        ignored);
    body(
        "checkout.session.expired",
        event("evt_1", "checkout.session.expired", session("cs_test_expired")),
        ignored);
    body(
        "upper-case Checkout type",
        event("evt_1", "CHECKOUT.SESSION.COMPLETED", session("cs_test_upper")),
        ignored);
    // not a JSON object with the event's fields
    for (String json :
        List.of(
            "",
            " ",
            "\n\t",
            "null",
            "true",
            "0",
            "\"evt\"",
            "[]",
            "[{\"id\":\"evt_1\",\"type\":\"invoice.paid\"}]",
            "{",
            "{\"id\":",
            "}",
            "{}",
            "{\"id\":\"evt_1\"}",
            "{\"type\":\"invoice.paid\"}",
            "{\"id\":null,\"type\":\"invoice.paid\"}",
            "{\"id\":\"evt_1\",\"type\":null}",
            "{\"id\":12345,\"type\":\"invoice.paid\"}",
            "{\"id\":\"evt_1\",\"type\":[\"x\"]}",
            "{\"id\":\"evt_1\",\"type\":{\"a\":1}}",
            "{id:'evt_1',type:'invoice.paid'}",
            "{\"id\":\"evt_1\",\"type\":\"invoice.paid\"} x",
            "{\"id\":\"evt_1\",\"type\":\"invoice.paid\"}{\"id\":\"evt_2\"}",
            "[".repeat(100_000),
            "{\"a\":" + "[".repeat(5_000) + "]".repeat(5_000) + "}")) {
      body(
          "not an event: " + (json.length() > 40 ? json.substring(0, 40) + "..." : json),
          json,
          malformed);
    }
    body(
        "invalid UTF-8",
        concat(
            "{\"id\":\"evt_".getBytes(StandardCharsets.UTF_8),
            new byte[] {(byte) 0xff, (byte) 0xfe},
            "\",\"type\":\"invoice.paid\"}".getBytes(StandardCharsets.UTF_8)),
        malformed);
    body(
        "UTF-16",
        "{\"id\":\"evt_1\",\"type\":\"invoice.paid\"}".getBytes(StandardCharsets.UTF_16),
        malformed);
    body("gzip", gzip(event("evt_1", "invoice.paid", null)), malformed);
    String completed = "checkout.session.completed";
    body(
        "Checkout event, no data",
        v1 + "\"id\":\"evt_1\",\"type\":\"" + completed + "\"}",
        malformed);
    for (String data :
        List.of(
            "null",
            "\"x\"",
            "[]",
            "{}",
            "{\"object\":\"cs_1\"}",
            "{\"object\":[]}",
            "{\"object\":null}",
            "{\"object\":\"" + EMAIL + "\"}")) {
      body(
          "Checkout event, data " + data,
          v1 + "\"id\":\"evt_1\",\"type\":\"" + completed + "\",\"data\":" + data + "}",
          malformed);
    }
    body("Checkout event, blank id", event("  ", completed, session("cs_test_blank")), unsupported);
    // signed Checkout events whose session cannot be mapped: Stripe retries
    body("session {}", event("evt_1", completed, new JsonObject()), unmappable);
    JsonObject noMetadata = session("cs_test_nometa");
    noMetadata.remove("metadata");
    body("no metadata", event("evt_1", completed, noMetadata), unmappable);
    body(
        "BEL and NUL in the event id, no metadata",
        event("evt_\u0007\u0000", completed, noMetadata),
        unsupported);
    Map<String, java.util.function.Consumer<JsonObject>> odd = new LinkedHashMap<>();
    odd.put("payment_status paid_in_bitcoin", s -> s.addProperty("payment_status", "paid_in_x"));
    odd.put("payment_status an array", s -> s.add("payment_status", new JsonArray()));
    odd.put("10 kB session id", s -> s.addProperty("id", "cs_" + "x".repeat(10_000)));
    odd.put("BEL and NUL in the session id", s -> s.addProperty("id", "cs_\u0007\u0000"));
    odd.put(
        "customer_details an array of the email",
        s -> {
          JsonArray array = new JsonArray();
          array.add(EMAIL);
          s.add("customer_details", array);
        });
    odd.put(
        "email an object",
        s -> {
          JsonObject email = new JsonObject();
          email.addProperty("x", EMAIL);
          s.getAsJsonObject("customer_details").add("email", email);
        });
    odd.put(
        "10 kB email",
        s ->
            s.getAsJsonObject("customer_details").addProperty("email", EMAIL + "x".repeat(10_000)));
    odd.put("metadata the email", s -> s.addProperty("metadata", EMAIL));
    odd.put(
        "quantity the email", s -> s.getAsJsonObject("metadata").addProperty("quantity", EMAIL));
    for (String quantity :
        List.of(
            "-3",
            "+2",
            "\uff12",
            "\u0662",
            " 2",
            "2 ",
            "0",
            "02x",
            "2.0",
            "1e3",
            "",
            "1001",
            "2147483647",
            "99999999999999999999")) {
      odd.put(
          "quantity '" + quantity + "'",
          s -> s.getAsJsonObject("metadata").addProperty("quantity", quantity));
    }
    odd.put("amount_total '+1500'", s -> s.addProperty("amount_total", "+1500"));
    odd.put("amount_total -1", s -> s.addProperty("amount_total", -1));
    odd.put("256-char session id", s -> s.addProperty("id", "cs_" + "s".repeat(253)));
    odd.put(
        "256-char product_id",
        s -> s.getAsJsonObject("metadata").addProperty("product_id", "p".repeat(256)));
    odd.put(
        "321-char email",
        s ->
            s.getAsJsonObject("customer_details")
                .addProperty("email", "e".repeat(310) + "@example.invalid"));
    odd.put("payment_status 10 kB", s -> s.addProperty("payment_status", "q".repeat(10_000)));
    odd.put(
        "product_id 10 kB with NUL",
        s ->
            s.getAsJsonObject("metadata")
                .addProperty("product_id", "p\u0000" + "x".repeat(10_000)));
    odd.put(
        "product_id an array of the email",
        s -> {
          JsonArray array = new JsonArray();
          array.add(EMAIL);
          s.getAsJsonObject("metadata").add("product_id", array);
        });
    odd.put("amount_total 1e400", s -> s.addProperty("amount_total", "1e400"));
    odd.put("amount_total abc", s -> s.addProperty("amount_total", "abc"));
    odd.put("currency euro signs", s -> s.addProperty("currency", "\u20ac\u20ac\u20ac\u20ac"));
    for (Map.Entry<String, java.util.function.Consumer<JsonObject>> change : odd.entrySet()) {
      JsonObject session = session("cs_test_odd");
      change.getValue().accept(session);
      body("session with " + change.getKey(), event("evt_1", completed, session), unmappable);
    }
  }

  private void sizesAndEncodings() throws IOException {
    byte[] big =
        ("{\"id\":\"evt_1\",\"type\":\"invoice.paid\",\"pad\":\""
                + "x".repeat(WebhookCore.MAX_BODY_BYTES)
                + "\"}")
            .getBytes(StandardCharsets.UTF_8);
    post("1 MiB + signed", big, signed(big), "413 body_too_large");
    post("1 MiB + unsigned", big, null, "413 body_too_large");
    String head =
        "POST /webhook HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
            + "Stripe-Signature: t=1,v1=00\r\n";
    cases.add(
        new Case(
            "Content-Length a terabyte",
            (head + "Content-Length: 999999999999\r\n\r\n{}").getBytes(StandardCharsets.ISO_8859_1),
            Set.of("413 body_too_large")));
    cases.add(
        new Case(
            "Content-Length beyond a long",
            (head + "Content-Length: 99999999999999999999\r\n\r\n{}")
                .getBytes(StandardCharsets.ISO_8859_1),
            PROTOCOL));
    cases.add(
        new Case(
            "Content-Length -1",
            (head + "Content-Length: -1\r\n\r\n{}").getBytes(StandardCharsets.ISO_8859_1),
            PROTOCOL));
    cases.add(
        new Case(
            "Content-Length abc",
            (head + "Content-Length: abc\r\n\r\n{}").getBytes(StandardCharsets.ISO_8859_1),
            PROTOCOL));
    cases.add(
        new Case(
            "two Content-Lengths",
            (head + "Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}")
                .getBytes(StandardCharsets.ISO_8859_1),
            PROTOCOL));
    ByteArrayOutputStream chunks = new ByteArrayOutputStream();
    chunks.writeBytes(
        (head + "Transfer-Encoding: chunked\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
    byte[] chunk = "x".repeat(65_536).getBytes(StandardCharsets.ISO_8859_1);
    for (int i = 0; i < 20; i++) {
      chunks.writeBytes("10000\r\n".getBytes(StandardCharsets.ISO_8859_1));
      chunks.writeBytes(chunk);
      chunks.writeBytes("\r\n".getBytes(StandardCharsets.ISO_8859_1));
    }
    chunks.writeBytes("0\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
    cases.add(new Case("chunked, 1.25 MiB", chunks.toByteArray(), Set.of("413 body_too_large")));
    cases.add(
        new Case(
            "chunked, a bad chunk size",
            (head + "Transfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n")
                .getBytes(StandardCharsets.ISO_8859_1),
            Set.of("400 unreadable_body", "400 bad_request")));
    String start = "{\"object\":\"event\",\"created\":1,\"id\":\"evt_1\",\"type\":\"invoice.paid\"";
    byte[] exact = (start + ",\"pad\":\"\"}").getBytes(StandardCharsets.UTF_8);
    int pad = WebhookCore.MAX_BODY_BYTES - exact.length;
    byte[] oneMebibyte =
        (start + ",\"pad\":\"" + "x".repeat(pad) + "\"}").getBytes(StandardCharsets.UTF_8);
    post("exactly 1 MiB, signed", oneMebibyte, signed(oneMebibyte), "200 ignored");
    byte[] ignored = event("evt_1", "invoice.paid", null).getBytes(StandardCharsets.UTF_8);
    for (String type :
        List.of(
            "text/plain",
            "application/x-www-form-urlencoded",
            "application/json; charset=utf-16",
            "multipart/form-data; boundary=x")) {
      Map<String, String> headers = new LinkedHashMap<>();
      headers.put("Content-Type", type);
      headers.put("Stripe-Signature", signed(ignored));
      add("Content-Type " + type, "POST", "/webhook", headers, ignored, Set.of("200 ignored"));
    }
    Map<String, String> encoded = new LinkedHashMap<>();
    byte[] gz = gzip(event("evt_1", "invoice.paid", null));
    encoded.put("Content-Encoding", "gzip");
    encoded.put("Stripe-Signature", signed(gz));
    add("Content-Encoding gzip", "POST", "/webhook", encoded, gz, Set.of("400 malformed_json"));
    Map<String, String> chunked = new LinkedHashMap<>();
    chunked.put("Transfer-Encoding", "chunked");
    chunked.put("Stripe-Signature", signed(ignored));
    byte[] chunkedBody =
        concat(
            (Integer.toHexString(ignored.length) + "\r\n").getBytes(StandardCharsets.ISO_8859_1),
            ignored,
            "\r\n0\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
    add("chunked, signed", "POST", "/webhook", chunked, chunkedBody, Set.of("200 ignored"));
  }

  private void methodsAndPaths() {
    for (String method : List.of("GET", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE", "FOO")) {
      add(
          method + " /webhook",
          method,
          "/webhook",
          Map.of(),
          method.equals("GET") ? null : "{}".getBytes(StandardCharsets.UTF_8),
          Set.of("405 method_not_allowed"));
    }
    add("HEAD /webhook", "HEAD", "/webhook", Map.of(), null, Set.of("405 head"));
    add("HEAD /health", "HEAD", "/health", Map.of(), null, Set.of("405 head"));
    for (String path : List.of("/health", "/metrics")) {
      for (String method : List.of("POST", "PUT", "DELETE")) {
        add(
            method + " " + path,
            method,
            path,
            Map.of(),
            "{}".getBytes(StandardCharsets.UTF_8),
            Set.of("405 method_not_allowed"));
      }
    }
    for (String path :
        List.of(
            "/",
            "/webhooks",
            "/webhook/",
            "/WEBHOOK",
            "/webhook/x",
            "/webhook.php",
            "/.env",
            "/" + EMAIL,
            "/%07%00",
            "/" + "a".repeat(4_000),
            "/%e9",
            "/admin?x=<script>",
            "/health/")) {
      add(
          "GET " + path.substring(0, Math.min(path.length(), 40)),
          "GET",
          path,
          Map.of(),
          null,
          union(Set.of("404 not_found"), PROTOCOL));
    }
    for (String path :
        List.of(
            "//webhook",
            "/%2e%2e/etc/passwd",
            "/webhook/../health",
            "/webhook%00",
            "/webhook;x=1",
            "/" + "a".repeat(70_000))) {
      add(
          "POST " + path.substring(0, Math.min(path.length(), 40)),
          "POST",
          path,
          Map.of(),
          buyable(),
          union(
              Set.of("404 not_found", "400 missing_signature", "405 method_not_allowed"),
              PROTOCOL));
    }
    add(
        "POST /webhook?x=1 unsigned",
        "POST",
        "/webhook?x=1&y=<script>",
        Map.of(),
        buyable(),
        Set.of("400 missing_signature"));
    add(
        "POST absolute-form",
        "POST",
        "http://evil.example/webhook",
        Map.of(),
        buyable(),
        union(Set.of("400 missing_signature"), PROTOCOL));
    add(
        "OPTIONS *",
        "OPTIONS",
        "*",
        Map.of(),
        null,
        union(Set.of("404 not_found", "405 method_not_allowed"), PROTOCOL));
  }

  private void brokenHttp() {
    for (String raw :
        List.of(
            "GARBAGE\r\n\r\n",
            "GET /health HTTP/9.9\r\nHost: x\r\n\r\n",
            "GET /health\r\n\r\n",
            "GET /health HTTP/1.1\r\n\r\n",
            "GET /health HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n",
            "GET /health HTTP/1.1\r\nHost: x\r\nX-Big: " + "y".repeat(20_000) + "\r\n\r\n",
            "GET /he\u0000alth HTTP/1.1\r\nHost: x\r\n\r\n",
            "POST /webhook HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n"
                + "Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
            "POST /webhook HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n{}",
            "\u0016\u0003\u0001\u0000\u00a5\u0001\u0000\u0000\u00a1\u0003\u0003")) {
      String name =
          "broken HTTP: "
              + raw.substring(0, Math.min(30, raw.length())).replaceAll("\\p{Cntrl}", "?");
      cases.add(
          new Case(
              name,
              raw.getBytes(StandardCharsets.ISO_8859_1),
              union(PROTOCOL, Set.of("200 ok", "no answer"))));
    }
  }

  private static Set<String> union(Set<String> a, Set<String> b) {
    java.util.HashSet<String> all = new java.util.HashSet<>(a);
    all.addAll(b);
    return all;
  }

  private static byte[] concat(byte[]... parts) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (byte[] part : parts) {
      out.writeBytes(part);
    }
    return out.toByteArray();
  }

  private static byte[] gzip(String text) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (GZIPOutputStream zip = new GZIPOutputStream(out)) {
      zip.write(text.getBytes(StandardCharsets.UTF_8));
    }
    return out.toByteArray();
  }
}
