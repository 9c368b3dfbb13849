package org.fencekit.fulfilment.scenarios;

import java.time.Clock;
import org.fencekit.store.OrderStore;
import org.fencekit.store.redis.RedisOrderStore;
import org.fencekit.testsupport.TestRedis;
import org.junit.jupiter.api.extension.RegisterExtension;

/** fencekit's own handler through every scenario, on a single Redis node. */
class RedisHandlerScenariosTest extends FulfilmentScenarios {

  @RegisterExtension static final TestRedis.ClassKeys REDIS = TestRedis.node("scenarios");

  @Override
  protected OrderStore newStore(Clock clock) {
    return RedisOrderStore.builder()
        .url(REDIS.address())
        .keyPrefix(REDIS.prefix())
        .clock(clock)
        .build();
  }

  @Override
  protected HandlerUnderTest newHandler(HandlerContext context) {
    return HandlerUnderTest.of(context.fulfilmentHandler().build());
  }
}
