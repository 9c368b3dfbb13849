package org.fencekit.store.redis;

import java.time.Clock;
import org.fencekit.store.OrderStore;
import org.fencekit.tck.ServerTimeTck;
import org.fencekit.testsupport.TestRedis;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The TCK's real-time group on a single node, leases on Redis's TIME. */
@DisplayName("RedisOrderStore with serverTime(true) passes the TCK's real-time group")
class RedisServerTimeTckTest extends ServerTimeTck {

  @RegisterExtension static final TestRedis.ClassKeys redis = TestRedis.node("server-time");

  @Override
  protected OrderStore newServerTimeStore(Clock clientClock) {
    return RedisOrderStore.builder()
        .url(redis.address())
        .keyPrefix(redis.prefix())
        .clock(clientClock)
        .serverTime(true)
        .build();
  }
}
