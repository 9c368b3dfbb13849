package org.fencekit.store.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.List;
import java.util.NoSuchElementException;
import org.fencekit.store.ClaimId;
import org.fencekit.store.ClaimResult;
import org.fencekit.store.Item;
import org.fencekit.store.OrderSnapshot;
import org.fencekit.store.StoreUnavailableException;
import org.fencekit.store.WriteResult;
import org.fencekit.tck.TestClock;
import org.fencekit.testsupport.OwnRedis;
import org.fencekit.testsupport.OwnRedisCluster;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.exceptions.JedisClusterOperationException;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.exceptions.JedisMovedDataException;

/**
 * Exact outcomes: a write Redis never ran says "nothing was written", one it may have run says
 * "outcome unknown", and TRYAGAIN during a live slot migration is retried a bounded number of
 * times.
 */
@DisplayName("RedisOrderStore says exactly whether a failed write ran")
class RedisRefusalTest {

  private static final Duration LEASE = Duration.ofMinutes(2);

  private static OrderSnapshot snapshot(String id) {
    return new OrderSnapshot(id, "esim", 1, null, 100, "usd");
  }

  @Test
  @DisplayName("failures that prove nothing ran, and those that do not")
  void classification() {
    assertTrue(
        Refusal.nothingRan(
            new JedisException(
                "Could not get a resource from the pool",
                new NoSuchElementException("Timeout waiting for idle object"))),
        "pool exhausted");
    assertTrue(
        Refusal.nothingRan(new JedisConnectionException("Failed to connect to 127.0.0.1:1.")),
        "connection refused");
    assertTrue(Refusal.nothingRan(new JedisDataException("TRYAGAIN Multiple keys request")));
    assertTrue(Refusal.nothingRan(new JedisDataException("CLUSTERDOWN The cluster is down")));
    assertTrue(Refusal.nothingRan(new JedisDataException("LOADING Redis is loading")));
    JedisClusterOperationException redirected =
        new JedisClusterOperationException("No more cluster attempts left.");
    redirected.addSuppressed(
        new JedisMovedDataException(
            "MOVED 1 127.0.0.1:7002", new HostAndPort("127.0.0.1", 7002), 1));
    assertTrue(Refusal.nothingRan(redirected), "MOVED left after the redirects");

    assertFalse(
        Refusal.nothingRan(
            new JedisConnectionException(new SocketTimeoutException("Read timed out"))),
        "a read timeout: the command was sent");
    assertFalse(
        Refusal.nothingRan(new JedisDataException("ERR user_script:3: Script attempted")),
        "a script error may come after a write");
    JedisClusterOperationException lost =
        new JedisClusterOperationException("No more cluster attempts left.");
    lost.addSuppressed(new JedisConnectionException(new SocketTimeoutException("Read timed out")));
    assertFalse(Refusal.nothingRan(lost), "a connection lost on some attempt");
  }

  @Test
  @DisplayName("connection refused: claim and complete say nothing was written")
  void connectionRefusedWritesNothing() {
    try (OwnRedis node = OwnRedis.start()) {
      String url = node.url();
      node.kill();
      try (RedisOrderStore store =
          RedisOrderStore.builder().url(url).timeout(Duration.ofMillis(500)).build()) {
        StoreUnavailableException claim =
            assertThrows(
                StoreUnavailableException.class, () -> store.claim(snapshot("cs_r"), LEASE));
        assertFalse(claim.outcomeUnknown(), claim.getMessage());
        assertTrue(claim.getMessage().contains("Nothing was written"), claim.getMessage());
        StoreUnavailableException complete =
            assertThrows(
                StoreUnavailableException.class,
                () ->
                    store.complete(
                        "cs_r", new ClaimId(1, ClaimId.newNonce()), new Item("p", null)));
        assertFalse(complete.outcomeUnknown(), complete.getMessage());
      }
    }
  }

  @Test
  @DisplayName(
      "TRYAGAIN while a slot is half migrated: retried a bounded number of times, then nothing was"
          + " written; once the slot has moved the same complete is written")
  void tryAgainIsRetriedThenNothingWritten() {
    try (OwnRedisCluster cluster = OwnRedisCluster.start()) {
      TestClock clock = new TestClock();
      OrderKeys keys = new OrderKeys("tryagain:", false);
      String id = "cs_tryagain";
      try (RedisOrderStore store =
          RedisOrderStore.builder()
              .clusterNodes(cluster.seeds())
              .keyPrefix("tryagain:")
              .clock(clock)
              .timeout(Duration.ofSeconds(2))
              .build()) {
        ClaimId claimId = ((ClaimResult.Claimed) store.claim(snapshot(id), LEASE)).claimId();
        int slot = cluster.slotOf(keys.order(id));
        OwnRedis source = cluster.masterOf(slot);
        OwnRedis target =
            cluster.masters().stream().filter(m -> m.port() != source.port()).findFirst().get();
        // the order's hash moves, its claims index entry does not (and its orphan keys do not
        // exist yet): complete's keys are split between the two nodes, which answer TRYAGAIN
        cluster.startMigration(slot, target);
        cluster.migrateKey(slot, target, keys.order(id));
        long before = errorCount(source, "TRYAGAIN") + errorCount(target, "TRYAGAIN");

        StoreUnavailableException e =
            assertThrows(
                StoreUnavailableException.class,
                () -> store.complete(id, claimId, new Item("prov-1", null)));
        assertFalse(e.outcomeUnknown(), e.getMessage());
        assertTrue(e.getMessage().contains("TRYAGAIN"), e.getMessage());
        assertEquals(
            ScriptRunner.TRYAGAIN_ATTEMPTS,
            errorCount(source, "TRYAGAIN") + errorCount(target, "TRYAGAIN") - before,
            "runs answered TRYAGAIN");

        cluster.finishMigration(slot, target);
        assertInstanceOf(
            WriteResult.Written.class, store.complete(id, claimId, new Item("prov-1", null)));
      }
    }
  }

  @Test
  @DisplayName(
      "a listing while a slot's index key has moved and its slot map has not: the page fails saying"
          + " so, skipping nothing silently; once the slot has moved the listing has the orphan")
  void listingDuringSlotMigrationFailsThePage() {
    try (OwnRedisCluster cluster = OwnRedisCluster.start()) {
      TestClock clock = new TestClock();
      OrderKeys keys = new OrderKeys("moving:", true);
      String id = "cs_moving";
      try (RedisOrderStore store =
          RedisOrderStore.builder()
              .clusterNodes(cluster.seeds())
              .keyPrefix("moving:")
              .clock(clock)
              .timeout(Duration.ofSeconds(2))
              .build()) {
        ClaimId stale = ((ClaimResult.Claimed) store.claim(snapshot(id), LEASE)).claimId();
        clock.advance(LEASE);
        store.claim(snapshot(id), LEASE);
        assertInstanceOf(
            WriteResult.Superseded.class, store.complete(id, stale, new Item("prov-1", null)));
        assertEquals(1, store.unreconciledOrphans(null, 10).items().size());

        String index = keys.index(OrderKeys.ORPHANS, id);
        int slot = cluster.slotOf(index);
        OwnRedis source = cluster.masterOf(slot);
        OwnRedis target =
            cluster.masters().stream().filter(m -> m.port() != source.port()).findFirst().get();
        cluster.startMigration(slot, target);
        cluster.migrateKey(slot, target, index);

        StoreUnavailableException e =
            assertThrows(
                StoreUnavailableException.class, () -> store.unreconciledOrphans(null, 10));
        assertTrue(e.getMessage().contains("non local key"), e.getMessage());

        cluster.finishMigration(slot, target);
        assertEquals(
            List.of(id),
            store.unreconciledOrphans(null, 10).items().stream()
                .map(o -> o.orphan().sessionId())
                .toList());
      }
    }
  }

  @Test
  @DisplayName(
      "before the layout is checked, calls on a Redis that does not answer wait out their timeouts"
          + " side by side, not one after another behind the check")
  void layoutCheckDoesNotQueueCallsWhileRedisIsSilent() throws Exception {
    int callers = 6;
    java.net.ServerSocket silent =
        new java.net.ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress());
    java.util.List<java.net.Socket> accepted =
        java.util.Collections.synchronizedList(new java.util.ArrayList<>());
    Thread acceptor =
        new Thread(
            () -> {
              try {
                while (true) {
                  accepted.add(silent.accept()); // accepts, never answers
                }
              } catch (java.io.IOException closed) {
                // the test is over
              }
            });
    acceptor.start();
    try (RedisOrderStore store =
        RedisOrderStore.builder()
            .url("redis://127.0.0.1:" + silent.getLocalPort())
            .keyPrefix("silent:")
            .timeout(Duration.ofSeconds(5))
            .build()) {
      java.util.concurrent.ExecutorService pool =
          java.util.concurrent.Executors.newFixedThreadPool(callers);
      List<java.util.concurrent.Future<?>> calls = new java.util.ArrayList<>();
      for (int i = 0; i < callers; i++) {
        String id = "cs_silent_" + i;
        calls.add(pool.submit(() -> store.get(id)));
      }
      long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
      while (accepted.size() < callers + 1 && System.nanoTime() < deadline) {
        Thread.sleep(10); // polls what the acceptor has seen; no lease or timer waits on it
      }
      // the build's own check, then one connection per caller, all at once
      assertTrue(
          accepted.size() >= callers + 1,
          "connections open at once while Redis was silent: " + accepted.size());
      synchronized (accepted) {
        for (java.net.Socket socket : accepted) {
          socket.close();
        }
      }
      for (java.util.concurrent.Future<?> call : calls) {
        java.util.concurrent.ExecutionException e =
            assertThrows(java.util.concurrent.ExecutionException.class, call::get);
        assertInstanceOf(StoreUnavailableException.class, e.getCause());
      }
      pool.shutdown();
    } finally {
      silent.close();
      acceptor.join();
    }
  }

  private static long errorCount(OwnRedis node, String code) {
    String info = OwnRedis.text(node.command("INFO", "errorstats"));
    for (String line : info.split("\r\n")) {
      if (line.startsWith("errorstat_" + code + ":count=")) {
        return Long.parseLong(line.substring(line.indexOf('=') + 1).split(",")[0]);
      }
    }
    return 0;
  }
}
