package org.fencekit.store.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.fencekit.store.ClaimId;
import org.fencekit.store.Item;
import org.fencekit.store.WriteResult;
import org.fencekit.tck.TestClock;
import org.fencekit.testsupport.TestRedis;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.resps.ClusterShardInfo;
import redis.clients.jedis.util.JedisClusterCRC16;

/** The Redis store's own behaviour on a Redis Cluster of three masters. */
@DisplayName("RedisOrderStore on a Redis Cluster")
class RedisClusterStoreTest extends RedisStoreBehaviour {

  /** Skips (or fails) each test up front when there is no cluster. */
  @BeforeEach
  void requireCluster() {
    TestRedis.clusterNodes();
  }

  @Override
  RedisOrderStore.Builder target(RedisOrderStore.Builder builder) {
    return builder.clusterNodes(TestRedis.clusterNodeSet());
  }

  @Override
  UnifiedJedis raw() {
    return TestRedis.clusterClient();
  }

  @Override
  void eachMaster(Consumer<Jedis> action) {
    TestRedis.eachClusterMaster(action);
  }

  @Override
  List<String> childTarget() {
    return List.of("cluster", TestRedis.clusterNodes());
  }

  @Test
  @DisplayName(
      "orders spread over all three masters, each order's keys in its own slot, and no command answers CROSSSLOT")
  void ordersSpreadAndNothingCrossesSlots() {
    Map<String, Long> crossSlotBefore = CrossSlotErrors.count();
    List<String> masters = new ArrayList<>();
    eachMaster(jedis -> masters.add(jedis.clusterMyId()));
    assertEquals(3, masters.size(), "the test cluster must have three masters");
    TestClock clock = new TestClock();
    Map<String, Integer> ordersPerMaster = new HashMap<>();
    OrderKeys keys = new OrderKeys(PREFIX, false);
    try (RedisOrderStore store = store(clock)) {
      List<String> ids = new ArrayList<>();
      for (int i = 0; i < 30; i++) {
        ids.add(sid("spread-" + i));
      }
      ids.add(sid("x}{y"));
      for (String id : ids) {
        ClaimId claimId = claimed(store.claim(snapshot(id), LEASE));
        assertInstanceOf(WriteResult.Written.class, store.extend(id, claimId, LEASE));
        clock.advance(LEASE);
        ClaimId fresh = claimed(store.claim(snapshot(id), LEASE));
        assertInstanceOf(
            WriteResult.Superseded.class,
            store.complete(id, claimId, new Item("late-" + id, null)));
        assertInstanceOf(WriteResult.Superseded.class, store.fail(id, claimId, "late"));
        assertInstanceOf(
            WriteResult.Written.class, store.complete(id, fresh, new Item("ok-" + id, "x")));
        assertEquals(1, store.orphans(id).size());
        store.get(id).orElseThrow();

        List<String> holders = new ArrayList<>();
        eachMaster(
            jedis -> {
              long slot = jedis.clusterKeySlot(keys.order(id));
              assertEquals(
                  slot,
                  jedis.clusterKeySlot(keys.orphans(id)),
                  "orphans of " + id + " in another slot");
              assertEquals(
                  slot,
                  jedis.clusterKeySlot(keys.orphanIds(id)),
                  "orphan ids of " + id + " in another slot");
              assertEquals(
                  JedisClusterCRC16.getSlot(OrderKeys.tag(id)),
                  slot,
                  "order " + id + " is not in its tag's slot");
              if (servesSlot(jedis, slot)) {
                assertTrue(
                    jedis.exists(keys.order(id))
                        && jedis.exists(keys.orphans(id))
                        && jedis.exists(keys.orphanIds(id)),
                    "the keys of order "
                        + id
                        + " are not all on master "
                        + jedis.clusterMyId()
                        + ", which serves slot "
                        + slot);
                holders.add(jedis.clusterMyId());
              }
            });
        assertEquals(
            1, holders.size(), "order " + id + " must be served by exactly one master: " + holders);
        ordersPerMaster.merge(holders.get(0), 1, Integer::sum);
      }
    }
    assertEquals(
        3, ordersPerMaster.size(), "orders did not reach every master: " + ordersPerMaster);
    assertEquals(crossSlotBefore, CrossSlotErrors.count(), "some command answered CROSSSLOT");
  }

  /** Whether this node owns {@code slot}, by CLUSTER SHARDS as the node itself sees it. */
  private boolean servesSlot(Jedis jedis, long slot) {
    String me = jedis.clusterMyId();
    for (ClusterShardInfo shard : jedis.clusterShards()) {
      boolean mine =
          shard.getNodes().stream()
              .anyMatch(n -> n.getId().equals(me) && n.getRole().equals("master"));
      for (List<Long> range : shard.getSlots()) {
        if (mine && range.get(0) <= slot && slot <= range.get(1)) {
          return true;
        }
      }
    }
    return false;
  }
}
