package org.fencekit.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
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
      fences(new FencedCasFloor(client, Orders.newRunPrefix()), false);
    }
  }

  @Test
  @DisplayName(
      "the indexed floor fences as the floor does, and lists exactly the held claims by lease end")
  void indexedFloorFencesAndListsHeldClaims() {
    try (UnifiedJedis client = RawRedis.nodeClient(redis.url())) {
      fences(FencedCasFloor.indexed(client, Orders.newRunPrefix()), true);
    }
  }

  private static void fences(FencedCasFloor floor, boolean indexed) {
    long t = 1_000_000;
    List<String> held = indexed ? List.of("o") : List.of();
    FencedCasFloor.Claim first = floor.claim("o", t, LEASE);
    assertEquals(List.of(), floor.heldUntil(t + LEASE - 1), "held, its lease not over");
    assertEquals(held, floor.heldUntil(t + LEASE), "held, its lease over: stuck");
    assertEquals(new FencedCasFloor.Claim("claimed", first.token()), first);
    assertEquals(1, first.token().fence());
    assertEquals("inflight", floor.claim("o", t + LEASE - 1, LEASE).outcome());
    FencedCasFloor.Claim second = floor.claim("o", t + LEASE, LEASE);
    assertEquals(2, second.token().fence());
    assertEquals(List.of(), floor.heldUntil(t + 2 * LEASE - 1), "taken again: a new lease");
    assertEquals(held, floor.heldUntil(t + 2 * LEASE), "listed once, at its new lease's end");
    assertEquals("superseded", floor.complete("o", first.token(), "p1", "x", t));
    assertEquals("superseded", floor.complete("o", first.token(), "p1", "x", t));
    assertEquals(
        "superseded", floor.complete("o", new ClaimId(2, first.token().nonce()), "p1", "x", t));
    assertEquals(
        Set.of("1:" + first.token().nonce() + ":p1", "2:" + first.token().nonce() + ":p1"),
        floor.orphans("o"));
    assertEquals(held, floor.heldUntil(t + 2 * LEASE), "a stale complete leaves the claim held");
    assertEquals("written", floor.complete("o", second.token(), "p2", "y", t));
    assertEquals(List.of(), floor.heldUntil(t + 10 * LEASE), "settled: held no more");
    assertEquals("written", floor.complete("o", second.token(), "p2", "y", t));
    assertEquals("superseded", floor.complete("o", second.token(), "p3", "y", t));
    FencedCasFloor.Claim after = floor.claim("o", t + 10 * LEASE, LEASE);
    assertEquals("provisioned", after.outcome());
    assertNull(after.token());
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
