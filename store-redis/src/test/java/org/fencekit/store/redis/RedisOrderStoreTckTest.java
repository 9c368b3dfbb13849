package org.fencekit.store.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;
import org.fencekit.store.OrderStore;
import org.fencekit.tck.OrderStoreTck;
import org.fencekit.tck.TestClock;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;

/**
 * The whole TCK against a single Redis node and against a three-master Redis Cluster. Each peer
 * store is a second client of its own over the same keys.
 */
@DisplayName("RedisOrderStore passes the TCK")
class RedisOrderStoreTckTest {

  private static final String PREFIX = RedisBackends.prefix("tck");

  private static Map<String, Long> crossSlotBefore;

  @BeforeAll
  static void countCrossSlotErrors() {
    crossSlotBefore = RedisBackends.crossSlotErrors();
  }

  @AfterAll
  static void deleteKeysAndCheckSlots() {
    RedisBackends.deleteKeys(false, PREFIX);
    RedisBackends.deleteKeys(true, PREFIX);
    assertEquals(
        crossSlotBefore,
        RedisBackends.crossSlotErrors(),
        "a command of the TCK run answered CROSSSLOT on a cluster master (INFO errorstats, by node id)");
  }

  /** The TCK on one node, each store with its own pooled client. */
  @Nested
  @DisplayName("on a single node")
  class SingleNode extends OrderStoreTck {
    /**
     * Skips (or fails) the test up front when there is no node, before the TCK touches the store.
     */
    @BeforeEach
    void requireNode() {
      RedisBackends.nodeUrl();
    }

    @Override
    protected OrderStore newStore(TestClock clock) {
      return RedisOrderStore.builder()
          .url(RedisBackends.nodeUrl())
          .keyPrefix(PREFIX)
          .clock(clock)
          .build();
    }

    @Override
    protected OrderStore newPeerStore(TestClock clock) {
      return newStore(clock);
    }
  }

  /** The TCK on a Redis Cluster of three masters, each store with its own cluster client. */
  @Nested
  @DisplayName("on a Redis Cluster")
  class Cluster extends OrderStoreTck {
    /**
     * Skips (or fails) the test up front when there is no cluster, before the TCK touches the
     * store.
     */
    @BeforeEach
    void requireCluster() {
      RedisBackends.clusterNodes();
    }

    @Override
    protected OrderStore newStore(TestClock clock) {
      return RedisOrderStore.builder()
          .clusterNodes(RedisBackends.clusterNodes())
          .keyPrefix(PREFIX)
          .clock(clock)
          .build();
    }

    @Override
    protected OrderStore newPeerStore(TestClock clock) {
      return newStore(clock);
    }
  }
}
