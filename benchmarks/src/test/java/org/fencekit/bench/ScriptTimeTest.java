package org.fencekit.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Set;
import org.fencekit.store.ClaimId;
import org.fencekit.testsupport.OwnRedis;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.UnifiedJedis;

/**
 * The floor is a correct fenced compare-and-set, and {@link ScriptTime} measures it beside the
 * Redis store on a Redis node of this test's own. Briefly by default; the measurement of record is
 * this test with {@code -Dfencekit.scriptTime.orders=2000 -Dfencekit.scriptTime.rounds=40} (its
 * table goes to standard output).
 */
class ScriptTimeTest {

  private static final long LEASE = 60_000;

  private static OwnRedis redis;

  @BeforeAll
  static void start() {
    redis = OwnRedis.start();
  }

  @AfterAll
  static void stop() {
    if (redis != null) {
      redis.close();
    }
  }

  @Test
  @DisplayName("the floor fences: one holder per lease, a stale complete is kept as an orphan once")
  void floorFences() {
    try (UnifiedJedis client = RawRedis.nodeClient(redis.url())) {
      FencedCasFloor floor = new FencedCasFloor(client, Orders.newRunPrefix());
      long t = 1_000_000;
      FencedCasFloor.Claim first = floor.claim("o", t, LEASE);
      assertEquals(new FencedCasFloor.Claim("claimed", first.token()), first);
      assertEquals(1, first.token().fence());
      assertEquals("inflight", floor.claim("o", t + LEASE - 1, LEASE).outcome());
      FencedCasFloor.Claim second = floor.claim("o", t + LEASE, LEASE);
      assertEquals(2, second.token().fence());
      assertEquals("superseded", floor.complete("o", first.token(), "p1", "x", t));
      assertEquals("superseded", floor.complete("o", first.token(), "p1", "x", t));
      assertEquals(
          "superseded", floor.complete("o", new ClaimId(2, first.token().nonce()), "p1", "x", t));
      assertEquals(
          Set.of("1:" + first.token().nonce() + ":p1", "2:" + first.token().nonce() + ":p1"),
          floor.orphans("o"));
      assertEquals("written", floor.complete("o", second.token(), "p2", "y", t));
      assertEquals("written", floor.complete("o", second.token(), "p2", "y", t));
      assertEquals("superseded", floor.complete("o", second.token(), "p3", "y", t));
      FencedCasFloor.Claim after = floor.claim("o", t + 10 * LEASE, LEASE);
      assertEquals("provisioned", after.outcome());
      assertNull(after.token());
    }
  }

  @Test
  @DisplayName(
      "script time: the store's scripts and the floor per pair, per round, and their ratio")
  void measures() {
    int orders = Integer.getInteger("fencekit.scriptTime.orders", 300);
    int rounds = Integer.getInteger("fencekit.scriptTime.rounds", 2);
    ScriptTime.Result result =
        ScriptTime.measure(redis.url(), orders, rounds, Duration.ofMinutes(10));
    System.out.print(result.format());
    assertEquals(rounds, result.rounds().size());
    for (ScriptTime.Round round : result.rounds()) {
      assertTrue(
          round.storeMicros() > 0 && round.floorMicros() > 0,
          "Redis must have spent time in both: " + round);
    }
  }
}
