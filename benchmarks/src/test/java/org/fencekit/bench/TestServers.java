package org.fencekit.bench;

import java.util.HashMap;
import java.util.Map;
import org.fencekit.testsupport.TestMysql;
import org.fencekit.testsupport.TestPostgres;
import org.fencekit.testsupport.TestRedis;

/**
 * The servers of the benchmarks' tests, found through test-support (the variable, else a container,
 * else the test is skipped and listed in the run's skip report, or fails with {@code
 * FENCEKIT_REQUIRE_BACKENDS=true}), handed to the main job as the environment it reads.
 */
final class TestServers {

  private TestServers() {}

  /** The process's environment with the setting of every one of {@code servers} in it. */
  static Map<String, String> env(Server... servers) {
    Map<String, String> env = new HashMap<>(System.getenv());
    for (Server server : servers) {
      env.put(server.variable(), setting(server));
    }
    return env;
  }

  /** The setting of {@code server}; skips the calling test if there is none. */
  static String setting(Server server) {
    switch (server) {
      case POSTGRES:
        return TestPostgres.jdbcUrl();
      case MYSQL:
        return TestMysql.jdbcUrl();
      case REDIS:
        return TestRedis.nodeUrl();
      default:
        return TestRedis.clusterNodes();
    }
  }
}
