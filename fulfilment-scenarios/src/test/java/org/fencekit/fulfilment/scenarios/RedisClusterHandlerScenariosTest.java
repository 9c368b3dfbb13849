package org.fencekit.fulfilment.scenarios;

import java.time.Clock;
import org.fencekit.store.OrderStore;
import org.fencekit.store.redis.RedisOrderStore;
import org.fencekit.testsupport.TestRedis;
import org.junit.jupiter.api.extension.RegisterExtension;

/** fencekit's own handler through every scenario, on a Redis Cluster. */
class RedisClusterHandlerScenariosTest extends FulfilmentScenarios {

  @RegisterExtension static final TestRedis.ClassKeys CLUSTER = TestRedis.cluster("scenarios");

  @Override
  protected OrderStore newStore(Clock clock) {
    return RedisOrderStore.builder()
        .clusterNodes(CLUSTER.address())
        .keyPrefix(CLUSTER.prefix())
        .clock(clock)
        .build();
  }

  @Override
  protected HandlerUnderTest newHandler(HandlerContext context) {
    return HandlerUnderTest.of(context.fulfilmentHandler().build());
  }
}
