package org.fencekit.store.redis;

import org.fencekit.store.OrderStore;
import org.fencekit.tck.OrderStoreTck;
import org.fencekit.tck.TestClock;
import org.fencekit.testsupport.TestRedis;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The whole TCK on a single Redis node; the peer store is a second pooled client of its own. */
@DisplayName("RedisOrderStore passes the TCK on a single node")
class RedisNodeTckTest extends OrderStoreTck {

  @RegisterExtension static final TestRedis.ClassKeys redis = TestRedis.node("tck");

  @Override
  protected OrderStore newStore(TestClock clock) {
    return RedisOrderStore.builder()
        .url(redis.address())
        .keyPrefix(redis.prefix())
        .clock(clock)
        .build();
  }

  @Override
  protected OrderStore newPeerStore(TestClock clock) {
    return newStore(clock);
  }
}
