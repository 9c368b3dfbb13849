package org.fencekit.admin;

import org.fencekit.testsupport.TestRedis;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The admin jar on a Redis Cluster, named as {@code redis-cluster:HOST:PORT,...}. */
class RedisClusterAdminIT extends AdminQueriesContract {

  @RegisterExtension static final TestRedis.ClassKeys REDIS = TestRedis.cluster("admin");

  @Override
  String storeSpec() {
    return "redis-cluster:" + REDIS.address();
  }

  @Override
  String keyPrefix() {
    return REDIS.prefix();
  }

  @Override
  String unreachableSpec() {
    return "redis-cluster:127.0.0.1:1";
  }
}
