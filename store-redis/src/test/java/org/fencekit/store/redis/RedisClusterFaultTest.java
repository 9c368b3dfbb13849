package org.fencekit.store.redis;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.fencekit.faults.FaultRun;
import org.fencekit.history.ManualClock;
import org.fencekit.testsupport.OwnRedis;
import org.fencekit.testsupport.OwnRedisCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The fault harness on a Redis Cluster of this test's own (three masters, a replica each), under
 * load: a coordinated failover, a master killed, slots migrated live. Each run must show no
 * violation of checks (a) to (g).
 */
@DisplayName("RedisOrderStore under load while its cluster fails over and reshards")
class RedisClusterFaultTest {

  private static OwnRedisCluster cluster;

  @BeforeAll
  static void startCluster() {
    cluster = OwnRedisCluster.start();
  }

  @AfterAll
  static void stopCluster() {
    if (cluster != null) {
      cluster.close();
    }
  }

  private static RedisOrderStore store(ManualClock clock, String prefix) {
    return RedisOrderStore.builder()
        .clusterNodes(cluster.seeds())
        .keyPrefix(prefix)
        .clock(clock)
        .timeout(Duration.ofSeconds(1))
        .build();
  }

  private static ManualClock clock() {
    return new ManualClock(Instant.parse("2026-01-01T00:00:00Z"));
  }

  @Test
  @DisplayName("CLUSTER FAILOVER of every master in turn under load: no violation")
  void failover() {
    ManualClock clock = clock();
    try (RedisOrderStore store = store(clock, "failover:")) {
      FaultRun.builder("redis-cluster/failover", store, clock)
          .fault(
              () -> {
                int failovers = 0;
                for (OwnRedis master : cluster.masters()) {
                  cluster.failover(master);
                  failovers++;
                }
                return failovers;
              })
          .run()
          .assertNoViolations();
    }
  }

  @Test
  @DisplayName("a master killed (SIGKILL) under load, its replica promoted: no violation")
  void masterKilled() {
    ManualClock clock = clock();
    try (RedisOrderStore store = store(clock, "killed:")) {
      FaultRun.builder("redis-cluster/master-killed", store, clock)
          .fault(
              () -> {
                cluster.killMaster(cluster.masters().get(0));
                return 1;
              })
          .run()
          .assertNoViolations();
    }
  }

  @Test
  @DisplayName(
      "the slots holding the run's orders migrated live to another master under load (ASK,"
          + " TRYAGAIN retried): no violation")
  void liveSlotMigration() {
    ManualClock clock = clock();
    String prefix = "migrate:";
    try (RedisOrderStore store = store(clock, prefix)) {
      FaultRun.builder("redis-cluster/live-slot-migration", store, clock)
          .fault(
              () -> {
                int migrated = 0;
                long until = System.nanoTime() + 3_000_000_000L;
                while (System.nanoTime() < until) {
                  for (int slot : slotsWithKeys(prefix)) {
                    OwnRedis source = cluster.masterOf(slot);
                    List<OwnRedis> masters = cluster.masters();
                    OwnRedis target = masters.get((masters.indexOf(source) + 1) % masters.size());
                    cluster.migrateSlot(slot, target);
                    migrated++;
                    if (System.nanoTime() > until) {
                      break;
                    }
                  }
                }
                return migrated;
              })
          .run()
          .assertNoViolations();
    }
  }

  /** The slots of the keys under {@code prefix}, newest orders' slots likely among them. */
  private static List<Integer> slotsWithKeys(String prefix) {
    Set<Integer> slots = new LinkedHashSet<>();
    for (OwnRedis master : cluster.masters()) {
      String cursor = "0";
      do {
        List<?> reply =
            (List<?>) master.command("SCAN", cursor, "MATCH", prefix + "*", "COUNT", "1000");
        cursor = OwnRedis.text(reply.get(0));
        for (Object key : (List<?>) reply.get(1)) {
          slots.add(cluster.slotOf(OwnRedis.text(key)));
        }
      } while (!cursor.equals("0"));
    }
    List<Integer> list = new ArrayList<>(slots);
    java.util.Collections.reverse(list);
    return list;
  }
}
