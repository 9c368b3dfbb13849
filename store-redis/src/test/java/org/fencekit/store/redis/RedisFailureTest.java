package org.fencekit.store.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import org.fencekit.store.ClaimId;
import org.fencekit.store.ClaimResult;
import org.fencekit.store.Item;
import org.fencekit.store.OrderSnapshot;
import org.fencekit.store.OrderStatus;
import org.fencekit.store.StoreUnavailableException;
import org.fencekit.store.WriteResult;
import org.fencekit.tck.TestClock;
import org.fencekit.testsupport.LoopbackPorts;
import org.fencekit.testsupport.OwnRedis;
import org.fencekit.testsupport.TestRedis;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The builder's checks, and what the store says when Redis is down, slow or unreachable. */
@DisplayName("RedisOrderStore, configured wrongly or cut off")
class RedisFailureTest {

  private static final String PREFIX = TestRedis.newPrefix("failure");
  private static final String PASSWORD = "s3cr3t-Pa55w0rd";
  private static final Duration LEASE = Duration.ofMinutes(2);

  @AfterAll
  static void deleteKeys() {
    TestRedis.deleteKeys(PREFIX);
  }

  private static OrderSnapshot snapshot(String sessionId) {
    return new OrderSnapshot(sessionId, "esim", 1, null, 100, "usd");
  }

  /** The exception's messages, its causes' and its stack trace, as a log would show them. */
  private static String logged(Throwable e) {
    StringWriter out = new StringWriter();
    e.printStackTrace(new PrintWriter(out));
    return out.toString();
  }

  @Test
  @DisplayName(
      "a password URL to a closed loopback port: StoreUnavailableException without the password")
  void closedPortHidesPassword() {
    int port = LoopbackPorts.closed();
    for (String url :
        List.of(
            "redis://fencekit:" + PASSWORD + "@127.0.0.1:" + port,
            "redis://:" + PASSWORD + "@127.0.0.1:" + port + "/0")) {
      try (RedisOrderStore store =
          RedisOrderStore.builder()
              .url(url)
              .keyPrefix(PREFIX)
              .timeout(Duration.ofMillis(500))
              .build()) {
        assertFalse(store.toString().contains(PASSWORD), store.toString());

        StoreUnavailableException claim =
            assertThrows(
                StoreUnavailableException.class, () -> store.claim(snapshot("cs_closed"), LEASE));
        assertFalse(logged(claim).contains(PASSWORD), logged(claim));
        assertFalse(claim.outcomeUnknown(), "never sent: " + claim.getMessage());
        assertEquals("redis", claim.backend());
        assertEquals("claim", claim.operation());
        assertTrue(
            claim.getMessage().contains("cs_closed")
                && claim.getMessage().contains("127.0.0.1:" + port)
                && claim.getMessage().contains("Nothing was written"),
            claim.getMessage());

        StoreUnavailableException complete =
            assertThrows(
                StoreUnavailableException.class,
                () ->
                    store.complete(
                        "cs_closed", new ClaimId(1, ClaimId.newNonce()), new Item("p", null)));
        assertFalse(complete.outcomeUnknown(), "never sent: " + complete.getMessage());
        assertFalse(logged(complete).contains(PASSWORD), logged(complete));

        StoreUnavailableException get =
            assertThrows(StoreUnavailableException.class, () -> store.get("cs_closed"));
        assertFalse(get.outcomeUnknown(), "a read writes nothing");
        assertTrue(get.getMessage().contains("Nothing was written"), get.getMessage());
        assertFalse(logged(get).contains(PASSWORD), logged(get));
      }
    }
  }

  @Test
  @DisplayName("a URL that is not one is refused, naming url, and never echoes its password")
  void badUrlHidesPassword() {
    for (String url :
        List.of(
            "redis://u:" + PASSWORD + "@127.0.0.1:notaport",
            "redis://u:" + PASSWORD + "@127.0.0.1:6379/ x",
            "http://u:" + PASSWORD + "@127.0.0.1:6379",
            "redis://u:" + PASSWORD + "@/0",
            "redis://u:" + PASSWORD + "@127.0.0.1:6379/db")) {
      IllegalArgumentException e =
          assertThrows(
              IllegalArgumentException.class,
              () -> RedisOrderStore.builder().url(url).build(),
              url);
      assertTrue(e.getMessage().startsWith("url"), e.getMessage());
      assertFalse(logged(e).contains(PASSWORD), logged(e));
    }
  }

  @Test
  @DisplayName(
      "the builder names the bad property: key prefix, clock, timeout, and exactly one target")
  void builderValidates() {
    assertTrue(
        assertThrows(
                IllegalArgumentException.class,
                () ->
                    RedisOrderStore.builder()
                        .url("redis://127.0.0.1:6379")
                        .keyPrefix("a{b}")
                        .build())
            .getMessage()
            .startsWith("keyPrefix"));
    assertEquals(
        "keyPrefix",
        assertThrows(
                NullPointerException.class,
                () ->
                    RedisOrderStore.builder().url("redis://127.0.0.1:6379").keyPrefix(null).build())
            .getMessage());
    assertEquals(
        "clock",
        assertThrows(
                NullPointerException.class,
                () -> RedisOrderStore.builder().url("redis://127.0.0.1:6379").clock(null).build())
            .getMessage());
    assertTrue(
        assertThrows(
                IllegalArgumentException.class,
                () ->
                    RedisOrderStore.builder()
                        .url("redis://127.0.0.1:6379")
                        .timeout(Duration.ZERO)
                        .build())
            .getMessage()
            .startsWith("timeout"));
    assertTrue(
        assertThrows(IllegalArgumentException.class, () -> RedisOrderStore.builder().build())
            .getMessage()
            .contains("exactly one of url, clusterNodes or client"));
    assertTrue(
        assertThrows(
                IllegalArgumentException.class,
                () ->
                    RedisOrderStore.builder()
                        .url("redis://127.0.0.1:6379")
                        .clusterNodes("127.0.0.1:7001")
                        .build())
            .getMessage()
            .contains("exactly one"));
    for (String nodes :
        List.of("", "127.0.0.1", "127.0.0.1:x", "127.0.0.1:7001,,", ":7001", "127.0.0.1:0")) {
      assertTrue(
          assertThrows(
                  IllegalArgumentException.class,
                  () -> RedisOrderStore.builder().clusterNodes(nodes).build(),
                  nodes)
              .getMessage()
              .startsWith("clusterNodes"),
          nodes);
    }
  }

  @Test
  @DisplayName(
      "bad input is refused before any command is sent (the store points at a closed port)")
  void badInputBeforeBackend() {
    try (RedisOrderStore store =
        RedisOrderStore.builder()
            .url("redis://127.0.0.1:" + LoopbackPorts.closed())
            .keyPrefix(PREFIX)
            .timeout(Duration.ofMillis(200))
            .build()) {
      ClaimId claimId = new ClaimId(1, ClaimId.newNonce());
      assertThrows(
          IllegalArgumentException.class, () -> store.claim(snapshot("ok"), Duration.ZERO));
      assertThrows(
          IllegalArgumentException.class, () -> store.claim(snapshot("ok"), Duration.ofHours(25)));
      assertThrows(NullPointerException.class, () -> store.claim(null, LEASE));
      assertThrows(
          NullPointerException.class, () -> store.complete("ok", null, new Item("p", null)));
      assertThrows(NullPointerException.class, () -> store.complete("ok", claimId, null));
      assertThrows(IllegalArgumentException.class, () -> store.fail("ok", claimId, " "));
      assertThrows(IllegalArgumentException.class, () -> store.extend("bad\nid", claimId, LEASE));
      assertThrows(IllegalArgumentException.class, () -> store.get(" "));
      assertThrows(IllegalArgumentException.class, () -> store.orphans("x".repeat(256)));
      assertThrows(IllegalArgumentException.class, () -> store.get("\uD800"));
    }
  }

  @Test
  @DisplayName(
      "a cluster whose seed nodes are all closed fails to build with StoreUnavailableException")
  void clusterUnreachable() {
    StoreUnavailableException e =
        assertThrows(
            StoreUnavailableException.class,
            () ->
                RedisOrderStore.builder()
                    .clusterNodes("127.0.0.1:" + LoopbackPorts.closed())
                    .timeout(Duration.ofMillis(300))
                    .build());
    assertEquals("connect", e.operation());
    assertFalse(e.outcomeUnknown());
  }

  /**
   * On a server of the test's own, stopped (SIGSTOP) while the settle is sent: it times out on the
   * client, and runs once the server is resumed. The claim, the checks and the retry go through a
   * store with a generous timeout, so only the settle meets the short one. Stopping the server is
   * in effect when the signal is sent; the shared server kept busy by a spinning script blocked
   * every other test's client meanwhile, and the one PING over 50 ms that decided it was busy could
   * fail before the script ran on a loaded machine.
   */
  @Test
  @DisplayName(
      "a settle that times out says its outcome is unknown; it did land, and the retry answers Written")
  void timeoutLeavesOutcomeUnknown() throws Exception {
    TestClock clock = new TestClock();
    String id = "cs_timeout_" + ClaimId.newNonce().substring(0, 8);
    Item item = new Item("prov-timeout", "code");
    try (OwnRedis node = OwnRedis.start();
        RedisOrderStore steady =
            RedisOrderStore.builder()
                .url(node.url())
                .keyPrefix(PREFIX)
                .clock(clock)
                .timeout(Duration.ofSeconds(30))
                .build();
        RedisOrderStore impatient =
            RedisOrderStore.builder()
                .url(node.url())
                .keyPrefix(PREFIX)
                .clock(clock)
                .timeout(Duration.ofMillis(300))
                .build()) {
      // complete.lua cached on the fresh server first: the held EVALSHA of a script it had not
      // seen would meet NOSCRIPT once resumed, and the store, gone by then, would never send EVAL
      String warm = id + "_warm";
      ClaimId warmId = ((ClaimResult.Claimed) steady.claim(snapshot(warm), LEASE)).claimId();
      assertInstanceOf(WriteResult.Written.class, steady.complete(warm, warmId, item));
      ClaimId claimId = ((ClaimResult.Claimed) steady.claim(snapshot(id), LEASE)).claimId();
      // the impatient store's layout checked and a connection in its pool, so that the settle is
      // the first thing it sends to the stopped server (its build gives up on the check at 300 ms)
      awaitAnswer(() -> impatient.get(id));

      StoreUnavailableException e;
      node.pause();
      try {
        e =
            assertThrows(
                StoreUnavailableException.class, () -> impatient.complete(id, claimId, item));
      } finally {
        node.resume();
      }
      assertTrue(e.outcomeUnknown(), e::getMessage);
      assertEquals("complete", e.operation());
      assertTrue(e.getMessage().contains("outcome is unknown"), e.getMessage());

      // the resumed server reads the settle the kernel queued; the steady store's reads may come
      // first, so wait for it (a settle that never reached Redis leaves the order PENDING)
      awaitAnswer(
          () -> {
            assertEquals(
                OrderStatus.PROVISIONED,
                steady.get(id).orElseThrow().status(),
                "the complete reached Redis before the client gave up, and ran once the server was"
                    + " free");
            return null;
          });
      assertInstanceOf(
          WriteResult.Written.class,
          steady.complete(id, claimId, item),
          "retrying the settle is safe");
      assertNull(steady.get(id).orElseThrow().claimId());
    }
  }

  /** Runs {@code call} until it returns (a failed assertion or store call is tried again), 30 s. */
  private static void awaitAnswer(Callable<?> call) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (true) {
      try {
        call.call();
        return;
      } catch (StoreUnavailableException | AssertionError e) {
        if (System.nanoTime() > deadline) {
          throw e;
        }
        TimeUnit.MILLISECONDS.sleep(20); // polling the server's state, not waiting for a lease
      }
    }
  }
}
