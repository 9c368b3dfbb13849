package org.fencekit.store.redis;

import java.time.Duration;
import java.time.Instant;
import org.fencekit.faults.FaultRun;
import org.fencekit.history.ManualClock;
import org.fencekit.testsupport.OwnRedis;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The fault harness on a Redis node of this test's own, under load: clients killed, the server
 * restarted without persistence, the server asleep past the client's timeout. Each run must show no
 * violation of checks (a) to (g).
 */
@DisplayName("RedisOrderStore under load while its node fails")
class RedisFaultTest {

  private static OwnRedis node;

  @BeforeAll
  static void startNode() {
    node = OwnRedis.start();
  }

  @AfterAll
  static void stopNode() {
    if (node != null) {
      node.close();
    }
  }

  private static RedisOrderStore store(ManualClock clock) {
    return RedisOrderStore.builder()
        .url(node.url())
        .keyPrefix("faults:")
        .clock(clock)
        .timeout(Duration.ofMillis(500))
        .build();
  }

  private static ManualClock clock() {
    return new ManualClock(Instant.parse("2026-01-01T00:00:00Z"));
  }

  @Test
  @DisplayName("CLIENT KILL of every connection, five times under load: no violation")
  void clientKill() {
    ManualClock clock = clock();
    try (RedisOrderStore store = store(clock)) {
      FaultRun.builder("redis/client-kill", store, clock)
          .fault(
              () -> {
                int killed = 0;
                for (int i = 0; i < 5; i++) {
                  killed += node.killClients();
                  Thread.sleep(100);
                }
                return killed;
              })
          .run()
          .assertNoViolations();
    }
  }

  @Test
  @DisplayName(
      "a restart without persistence: everything is lost, and no token from before settles a"
          + " recreated order")
  void restartWithoutPersistence() {
    ManualClock clock = clock();
    try (RedisOrderStore store = store(clock)) {
      FaultRun.builder("redis/restart-without-persistence", store, clock)
          .fault(
              () -> {
                node.restart();
                return 1;
              })
          .dataLoss(true)
          .run()
          .assertNoViolations();
    }
  }

  @Test
  @DisplayName("DEBUG SLEEP past the client's 500 ms timeout, twice: no violation")
  void debugSleep() {
    ManualClock clock = clock();
    try (RedisOrderStore store = store(clock)) {
      FaultRun.builder("redis/debug-sleep", store, clock)
          .fault(
              () -> {
                node.sleep(1500);
                Thread.sleep(200);
                node.sleep(1500);
                return 2;
              })
          .run()
          .assertNoViolations();
    }
  }
}
