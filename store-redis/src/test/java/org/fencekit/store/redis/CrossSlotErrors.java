package org.fencekit.store.redis;

import java.util.HashMap;
import java.util.Map;
import org.fencekit.testsupport.TestRedis;

/** How often the test cluster's masters have answered CROSSSLOT, to check that nothing did. */
final class CrossSlotErrors {

  private static final String STAT = "errorstat_CROSSSLOT:count=";

  private CrossSlotErrors() {}

  /**
   * Each cluster master's count of CROSSSLOT error replies so far (INFO errorstats), by node id;
   * empty if there is no cluster.
   */
  static Map<String, Long> count() {
    Map<String, Long> counts = new HashMap<>();
    if (!TestRedis.clusterAvailable()) {
      return counts;
    }
    TestRedis.eachClusterMaster(
        jedis -> {
          long count = 0;
          for (String line : jedis.info("errorstats").split("\r?\n")) {
            if (line.startsWith(STAT)) {
              count = Long.parseLong(line.substring(STAT.length()).trim());
            }
          }
          counts.put(jedis.clusterMyId(), count);
        });
    return counts;
  }
}
