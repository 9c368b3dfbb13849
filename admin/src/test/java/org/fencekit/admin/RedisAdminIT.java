package org.fencekit.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.fencekit.admin.AdminProcess.Run;
import org.fencekit.testsupport.TestRedis;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The admin jar on a single Redis node, under a key prefix of its own. */
class RedisAdminIT extends AdminContract {

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

  @Test
  void theOperatorQueriesSayTheStoreLacksThem() throws Exception {
    Run run = admin("orphans", "list");
    assertEquals(2, run.exitCode(), run.toString());
    assertTrue(run.err().contains("does not offer the operator's queries"), run.toString());
  }
}
