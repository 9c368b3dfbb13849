package org.fencekit.store;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.fencekit.store.spi.Validate;
import org.fencekit.store.spi.WriteRequest;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Every bad input is refused with a message naming the argument. */
class ValidateTest {

  private static void refused(
      Class<? extends RuntimeException> type, String argument, Executable call) {
    RuntimeException e = assertThrows(type, call);
    assertTrue(
        e.getMessage() != null && e.getMessage().contains(argument),
        "the message should name '" + argument + "': " + e.getMessage());
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "",
        "   ",
        "a\u0000b",
        "line\nbreak",
        "tab\there",
        "\u007f",
        "lone\ud800surrogate",
        "x\udc00",
        // controls just outside printable ASCII, and blanks that are not ASCII spaces
        "x\u001fy",
        "a\u0080b",
        "\u2003",
        " \u3000 "
      })
  @DisplayName("a blank, control-character or malformed session id is refused")
  void badSessionIds(String sessionId) {
    refused(IllegalArgumentException.class, "sessionId", () -> Validate.sessionId(sessionId));
  }

  @Test
  @DisplayName("a session id of 255 chars is taken, 256 is refused, null names the argument")
  void sessionIdLength() {
    assertDoesNotThrow(() -> Validate.sessionId("s".repeat(255)));
    refused(IllegalArgumentException.class, "sessionId", () -> Validate.sessionId("s".repeat(256)));
    refused(NullPointerException.class, "sessionId", () -> Validate.sessionId(null));
    assertDoesNotThrow(() -> Validate.sessionId("cs_\ud83d\ude00_{weird}"));
  }

  @Test
  @DisplayName("snapshot fields are checked when the snapshot is built")
  void snapshot() {
    refused(
        IllegalArgumentException.class,
        "quantity",
        () -> new OrderSnapshot("s", "p", 0, null, 1, "usd"));
    refused(
        IllegalArgumentException.class,
        "amountTotal",
        () -> new OrderSnapshot("s", "p", 1, null, -1, "usd"));
    refused(
        IllegalArgumentException.class,
        "currency",
        () -> new OrderSnapshot("s", "p", 1, null, 1, "us"));
    refused(
        IllegalArgumentException.class,
        "currency",
        () -> new OrderSnapshot("s", "p", 1, null, 1, "u5d"));
    refused(
        NullPointerException.class,
        "currency",
        () -> new OrderSnapshot("s", "p", 1, null, 1, null));
    refused(
        NullPointerException.class,
        "productId",
        () -> new OrderSnapshot("s", null, 1, null, 1, "usd"));
    refused(
        IllegalArgumentException.class,
        "customerEmail",
        () -> new OrderSnapshot("s", "p", 1, "a\nb", 1, "usd"));
    assertDoesNotThrow(() -> new OrderSnapshot("s", "p", 1, null, 0, "EUR"));
  }

  @Test
  @DisplayName("leases must lie within 1 ms and 24 h")
  void leases() {
    refused(IllegalArgumentException.class, "lease", () -> Validate.lease(Duration.ZERO));
    refused(IllegalArgumentException.class, "lease", () -> Validate.lease(Duration.ofMillis(-5)));
    refused(
        IllegalArgumentException.class, "lease", () -> Validate.lease(Duration.ofNanos(999_999)));
    refused(
        IllegalArgumentException.class,
        "lease",
        () -> Validate.lease(Duration.ofHours(24).plusMillis(1)));
    refused(NullPointerException.class, "lease", () -> Validate.lease(null));
    assertEquals(Duration.ofHours(24), Validate.lease(Duration.ofHours(24)));
  }

  @Test
  @DisplayName("write requests name the missing argument, in the order the store method takes them")
  void writeRequests() {
    ClaimId id = new ClaimId(1, "0123456789abcdef0123456789abcdef");
    refused(
        NullPointerException.class,
        "claimId",
        () -> new WriteRequest.Complete("s", null, new Item("p", null)));
    refused(NullPointerException.class, "item", () -> new WriteRequest.Complete("s", id, null));
    refused(NullPointerException.class, "error", () -> new WriteRequest.Fail("s", id, null));
    refused(IllegalArgumentException.class, "error", () -> new WriteRequest.Fail("s", id, " "));
    refused(
        IllegalArgumentException.class,
        "sessionId",
        () -> new WriteRequest.Extend("", id, Duration.ofSeconds(1)));
    refused(IllegalArgumentException.class, "payload", () -> new Item("p", "x\u0000"));
    refused(IllegalArgumentException.class, "payload", () -> new Item("p", "{\ud800}"));
    refused(IllegalArgumentException.class, "payload", () -> new Item("p", "\udc00\ud800"));
    refused(
        IllegalArgumentException.class,
        "payload",
        () -> new Item("p", "x".repeat(Validate.MAX_PAYLOAD_LENGTH + 1)));
    assertDoesNotThrow(() -> new Item("p", "{\"a\":\t\"\ud83d\ude00\"}\n"));
    refused(
        IllegalArgumentException.class, "error", () -> new WriteRequest.Fail("s", id, "\u0000"));
  }

  @ParameterizedTest
  @ValueSource(
      strings = {"", "1orders", "orders; DROP TABLE x", "o-rders", "\"orders\"", "orders\n"})
  @DisplayName("table names must be plain identifiers")
  void identifiers(String name) {
    refused(
        IllegalArgumentException.class,
        "ordersTable",
        () -> Validate.identifier("ordersTable", name));
  }

  @Test
  @DisplayName("key prefixes may not hold braces, which would change the cluster hash tag")
  void keyPrefixes() {
    assertDoesNotThrow(() -> Validate.keyPrefix("keyPrefix", "fencekit:order:"));
    refused(
        IllegalArgumentException.class, "keyPrefix", () -> Validate.keyPrefix("keyPrefix", "a{b}"));
    refused(IllegalArgumentException.class, "keyPrefix", () -> Validate.keyPrefix("keyPrefix", ""));
  }

  @Test
  @DisplayName("a claim id prints and parses back; malformed ones are refused")
  void claimIds() {
    ClaimId id = new ClaimId(7, ClaimId.newNonce());
    assertEquals(id, ClaimId.parse(id.toString()));
    refused(
        IllegalArgumentException.class,
        "fence",
        () -> new ClaimId(0, "0123456789abcdef0123456789abcdef"));
    refused(IllegalArgumentException.class, "nonce", () -> new ClaimId(1, "XYZ"));
    refused(IllegalArgumentException.class, "claimId", () -> ClaimId.parse("nonsense"));
  }

  @Test
  @DisplayName("fresh nonces are valid and distinct, across threads too")
  void freshNonces() throws Exception {
    java.util.Set<String> seen = java.util.concurrent.ConcurrentHashMap.newKeySet();
    Thread[] threads = new Thread[4];
    for (int t = 0; t < threads.length; t++) {
      threads[t] =
          new Thread(
              () -> {
                for (int i = 0; i < 5_000; i++) {
                  seen.add(new ClaimId(1, ClaimId.newNonce()).nonce());
                }
              });
      threads[t].start();
    }
    for (Thread thread : threads) {
      thread.join();
    }
    assertEquals(20_000, seen.size(), "every nonce must be new");
  }

  @Test
  @DisplayName(
      "a closed store's error names the store, the call refused and the order, quoted and bounded")
  void storeClosedMessage() {
    assertEquals(
        "the postgres store is closed: cannot claim order 'cs_1'; build a new store",
        Validate.storeClosed("postgres store", "claim", "cs_1").getMessage());
    assertEquals(
        "the sqlite store on a.db is closed; build a new store",
        Validate.storeClosed("sqlite store on a.db", null, null).getMessage());
    String hostile = "cs_\n" + "x".repeat(300);
    String message = Validate.storeClosed("redis store", "get", hostile).getMessage();
    assertTrue(message.length() < 200, message);
    assertTrue(!message.contains("\n"), "a control character must be escaped: " + message);
  }
}
