package org.fencekit.store.redis;

import java.net.URI;
import java.util.List;
import java.util.function.Consumer;
import org.fencekit.testsupport.TestRedis;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.UnifiedJedis;

/** The Redis store's own behaviour on one node, through a pooled {@link RedisClient}. */
@DisplayName("RedisOrderStore on a single node")
class RedisNodeStoreTest extends RedisStoreBehaviour {

  /** Skips (or fails) each test up front when there is no node. */
  @BeforeEach
  void requireNode() {
    TestRedis.nodeUrl();
  }

  @Override
  RedisOrderStore.Builder target(RedisOrderStore.Builder builder) {
    return builder.url(TestRedis.nodeUrl());
  }

  @Override
  UnifiedJedis raw() {
    return RedisClient.create(URI.create(TestRedis.nodeUrl()));
  }

  @Override
  void eachMaster(Consumer<Jedis> action) {
    try (Jedis jedis = new Jedis(URI.create(TestRedis.nodeUrl()))) {
      action.accept(jedis);
    }
  }

  @Override
  List<String> childTarget() {
    return List.of("url", TestRedis.nodeUrl());
  }
}
