package org.fencekit.admin;

import org.fencekit.testsupport.TestRedis;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The admin jar on a single Redis node, under a key prefix of its own. */
class RedisAdminIT extends AdminQueriesContract {

  @RegisterExtension static final TestRedis.ClassKeys REDIS = TestRedis.node("admin");

  @Override
  String storeSpec() {
    return REDIS.address();
  }

  @Override
  String keyPrefix() {
    return REDIS.prefix();
  }

  @Override
  String unreachableSpec() {
    return "redis://default:" + SECRET + "@127.0.0.1:1";
  }
}
