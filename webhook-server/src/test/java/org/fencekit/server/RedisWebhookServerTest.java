package org.fencekit.server;

import java.time.Clock;
import org.fencekit.store.OrderStore;
import org.fencekit.store.redis.RedisOrderStore;
import org.fencekit.testsupport.TestRedis;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The server over HTTP on a single Redis node. */
class RedisWebhookServerTest extends WebhookServerContract {

  @RegisterExtension static final TestRedis.ClassKeys REDIS = TestRedis.node("webhook");

  @Override
  OrderStore newStore(Clock clock) {
    return RedisOrderStore.builder()
        .url(REDIS.address())
        .keyPrefix(REDIS.prefix())
        .clock(clock)
        .build();
  }
}
