package org.fencekit.store.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;
import org.fencekit.store.OrderStore;
import org.fencekit.tck.OrderStoreTck;
import org.fencekit.tck.TestClock;
import org.fencekit.testsupport.TestRedis;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The whole TCK on a Redis Cluster of three masters; the peer store is a second cluster client of
 * its own. No command of the run may answer CROSSSLOT.
 */
@DisplayName("RedisOrderStore passes the TCK on a Redis Cluster")
class RedisClusterTckTest extends OrderStoreTck {

  @RegisterExtension static final TestRedis.ClassKeys redis = TestRedis.cluster("tck");

  private static Map<String, Long> crossSlotBefore;

  @BeforeAll
  static void countCrossSlotErrors() {
    crossSlotBefore = CrossSlotErrors.count();
  }

  @AfterAll
  static void noCrossSlotErrors() {
    assertEquals(
        crossSlotBefore,
        CrossSlotErrors.count(),
        "a command of the TCK run answered CROSSSLOT on a cluster master (INFO errorstats, by node id)");
  }

  @Override
  protected OrderStore newStore(TestClock clock) {
    return RedisOrderStore.builder()
        .clusterNodes(redis.address())
        .keyPrefix(redis.prefix())
        .clock(clock)
        .build();
  }

  @Override
  protected OrderStore newPeerStore(TestClock clock) {
    return newStore(clock);
  }
}
