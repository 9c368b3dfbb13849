package org.fencekit.store.redis;

import java.time.Clock;
import org.fencekit.store.OrderStore;
import org.fencekit.tck.ServerTimeTck;
import org.fencekit.testsupport.TestRedis;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The TCK's real-time group on a Redis Cluster, leases on the masters' TIME. */
@DisplayName("RedisOrderStore with serverTime(true) passes the TCK's real-time group on a cluster")
class RedisClusterServerTimeTckTest extends ServerTimeTck {

  @RegisterExtension static final TestRedis.ClassKeys redis = TestRedis.cluster("server-time");

  @Override
  protected OrderStore newServerTimeStore(Clock clientClock) {
    return RedisOrderStore.builder()
        .clusterNodes(redis.address())
        .keyPrefix(redis.prefix())
        .clock(clientClock)
        .serverTime(true)
        .build();
  }
}
