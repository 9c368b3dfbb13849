package org.fencekit.store.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
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
import org.fencekit.testsupport.TestRedis;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.RedisClient;

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

  @Test
  @DisplayName(
      "a settle that times out says its outcome is unknown; it did land, and the retry answers Written")
  void timeoutLeavesOutcomeUnknown() throws Exception {
    String url = TestRedis.nodeUrl();
    TestClock clock = new TestClock();
    String id = "cs_timeout_" + ClaimId.newNonce().substring(0, 8);
    try (RedisOrderStore store =
        RedisOrderStore.builder()
            .url(url)
            .keyPrefix(PREFIX)
            .clock(clock)
            .timeout(Duration.ofMillis(300))
            .build()) {
      ClaimId claimId = ((ClaimResult.Claimed) store.claim(snapshot(id), LEASE)).claimId();
      Item item = new Item("prov-timeout", "code");

      CompletableFuture<Object> busy = blockServerFor(url, 3000);
      StoreUnavailableException e =
          assertThrows(StoreUnavailableException.class, () -> store.complete(id, claimId, item));
      assertTrue(e.outcomeUnknown());
      assertEquals("complete", e.operation());
      assertTrue(e.getMessage().contains("outcome is unknown"), e.getMessage());
      busy.get(30, TimeUnit.SECONDS);

      assertEquals(
          OrderStatus.PROVISIONED,
          store.get(id).orElseThrow().status(),
          "the complete reached Redis before the client gave up, and ran once the server was free");
      assertInstanceOf(
          WriteResult.Written.class,
          store.complete(id, claimId, item),
          "retrying the settle is safe");
      assertNull(store.get(id).orElseThrow().claimId());
    }
  }

  /**
   * Keeps the real server busy for {@code millis} with a script that spins on TIME (under the
   * default 5 s busy-script limit; other clients' commands wait meanwhile), and returns once a PING
   * with a short timeout goes unanswered.
   */
  private static CompletableFuture<Object> blockServerFor(String url, int millis)
      throws InterruptedException {
    String spin =
        "local t0 = redis.call('TIME') "
            + "repeat local t = redis.call('TIME') "
            + "until (t[1] - t0[1]) * 1000000 + (t[2] - t0[2]) > tonumber(ARGV[1]) * 1000 return 1";
    RedisClient blocker =
        RedisClient.builder()
            .hostAndPort(HostAndPort.from(URI.create(url).getAuthority()))
            .clientConfig(DefaultJedisClientConfig.builder().timeoutMillis(30_000).build())
            .build();
    CompletableFuture<Object> done =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return blocker.eval(spin, List.of(), List.of(Integer.toString(millis)));
              } finally {
                blocker.close();
              }
            });
    URI uri = URI.create(url);
    for (int i = 0; i < 200; i++) {
      try (Jedis probe =
          new Jedis(
              new HostAndPort(uri.getHost(), uri.getPort()),
              DefaultJedisClientConfig.builder().timeoutMillis(50).build())) {
        probe.ping();
        TimeUnit.MILLISECONDS.sleep(
            10); // not about leases: waiting for the spinning script to start
      } catch (RuntimeException blocked) {
        return done;
      }
    }
    throw new AssertionError("the server never became busy");
  }
}
