package org.fencekit.testsupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.RedisClusterClient;

/** Prefixes and their deletion on the real node and on every master of the real cluster. */
class TestRedisTest {

  @Test
  @DisplayName("each prefix is new, carries its label, and a bad label is refused")
  void prefixes() {
    String one = TestRedis.newPrefix("tck");
    assertTrue(one.matches("fencekit-test-[0-9a-f]{8}-tck:"), one);
    assertNotEquals(one, TestRedis.newPrefix("tck"));
    for (String bad : new String[] {"", "Tck", "a:b", "a b", "x".repeat(41)}) {
      assertThrows(IllegalArgumentException.class, () -> TestRedis.newPrefix(bad), bad);
    }
    assertThrows(IllegalArgumentException.class, () -> TestRedis.deleteKeys(""));
  }

  @Test
  @DisplayName("deleteKeys removes a prefix's keys from the single node, and no other keys")
  void deletesOnNode() {
    String prefix = TestRedis.newPrefix("delete-node");
    String other = TestRedis.newPrefix("keep-node");
    try (Jedis jedis = new Jedis(URI.create(TestRedis.nodeUrl()))) {
      for (int i = 0; i < 20; i++) {
        jedis.set(prefix + i, "x");
      }
      jedis.set(other + "kept", "x");
      TestRedis.deleteKeys(prefix);
      assertEquals(List.of(), TestRedis.scan(jedis, prefix));
      assertEquals(List.of(other + "kept"), TestRedis.scan(jedis, other));
      jedis.del(other + "kept");
    }
  }

  @Test
  @DisplayName("deleteKeys removes a prefix's keys from every master of the cluster")
  void deletesOnEveryMaster() {
    String prefix = TestRedis.newPrefix("delete-cluster");
    try (RedisClusterClient client = TestRedis.clusterClient()) {
      for (int i = 0; i < 60; i++) {
        client.set(prefix + "{" + i + "}", "x"); // 60 hash tags: every master gets some
      }
    }
    List<Integer> before = new ArrayList<>();
    TestRedis.eachClusterMaster(jedis -> before.add(TestRedis.scan(jedis, prefix).size()));
    assertEquals(3, before.size(), "the test cluster has three masters");
    assertTrue(before.stream().allMatch(n -> n > 0), "keys on every master: " + before);
    assertEquals(60, before.stream().mapToInt(Integer::intValue).sum());
    TestRedis.deleteKeys(prefix);
    TestRedis.eachClusterMaster(jedis -> assertEquals(List.of(), TestRedis.scan(jedis, prefix)));
  }
}
