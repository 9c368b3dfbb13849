package org.fencekit.bench;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.fencekit.store.ClaimId;
import redis.clients.jedis.ConnectionPoolConfig;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisNoScriptException;
import redis.clients.jedis.util.JedisClusterCRC16;
import redis.clients.jedis.util.JedisURIHelper;

/**
 * The Redis store's scripts through bare Jedis: EVALSHA of the store's own claim.lua and
 * complete.lua (with prelude.lua and helpers.lua, as the store's LuaScript puts them), with the
 * same keys and arguments (the order's keys and its node's or slot's index keys), on a client
 * pooled as the store's is (32 connections, 2 s timeout), the reply checked for its outcome and
 * otherwise left undecoded.
 */
final class RawRedis implements RawDriver {

  private static final String LUA = "/org/fencekit/store/redis/";

  private final UnifiedJedis client;
  private final String keyPrefix;
  private final boolean cluster;
  private final Script claim = Script.load("claim");
  private final Script complete = Script.load("complete");

  /**
   * The store's scripts through {@code client} (a {@link #nodeClient} or, if {@code cluster}, a
   * {@link #clusterClient}), keys in {@code namespace}.
   */
  RawRedis(UnifiedJedis client, Namespace namespace, boolean cluster) {
    this.client = client;
    this.keyPrefix = namespace.keyPrefix();
    this.cluster = cluster;
  }

  /**
   * The key of an index of the store's ({@code claims}, {@code orphans}) that holds the order's
   * entries: one per node, or the one of the order's slot on a Cluster (the store's OrderKeys).
   */
  private String index(String listing, String order) {
    return cluster
        ? keyPrefix + "{" + SlotTag.of(JedisClusterCRC16.getSlot(order)) + "}:index:" + listing
        : keyPrefix + "index:" + listing;
  }

  /** For each Cluster slot, the smallest decimal number hashing to it, as the store's SlotTags. */
  private static final class SlotTag {
    private static final String[] TAGS = new String[16384];

    static {
      int missing = TAGS.length;
      for (int n = 0; missing > 0; n++) {
        int slot = JedisClusterCRC16.getSlot(Integer.toString(n));
        if (TAGS[slot] == null) {
          TAGS[slot] = Integer.toString(n);
          missing--;
        }
      }
    }

    static String of(int slot) {
      return TAGS[slot];
    }
  }

  /**
   * A client of a single node at a {@code redis://} URL (user, password, database too), pooled as
   * the store's is; the peers use it too.
   */
  static UnifiedJedis nodeClient(String url) {
    URI uri = URI.create(url);
    return RedisClient.builder()
        .hostAndPort(JedisURIHelper.getHostAndPort(uri))
        .clientConfig(
            DefaultJedisClientConfig.builder()
                .user(JedisURIHelper.getUser(uri))
                .password(JedisURIHelper.getPassword(uri))
                .database(JedisURIHelper.getDBIndex(uri))
                .ssl(JedisURIHelper.isRedisSSLScheme(uri))
                .timeoutMillis(2000)
                .build())
        .poolConfig(pool())
        .build();
  }

  /** A cluster client given {@code host:port,host:port}, pooled as the store's is. */
  static UnifiedJedis clusterClient(String nodes) {
    Set<HostAndPort> seeds = new LinkedHashSet<>();
    for (String node : nodes.split(",")) {
      seeds.add(HostAndPort.from(node.trim()));
    }
    return RedisClusterClient.builder()
        .nodes(seeds)
        .clientConfig(DefaultJedisClientConfig.builder().timeoutMillis(2000).build())
        .poolConfig(pool())
        .build();
  }

  private static ConnectionPoolConfig pool() {
    ConnectionPoolConfig pool = new ConnectionPoolConfig();
    pool.setMaxTotal(32);
    pool.setMaxIdle(32);
    pool.setMaxWait(Duration.ofSeconds(2));
    return pool;
  }

  @Override
  public Session session() {
    return new Session() {
      @Override
      public void claimComplete(String sessionId, long now) {
        // The benchmarks' session ids are plain, so the store's tag encoding leaves them as is.
        String order = keyPrefix + "{" + sessionId + "}";
        String nonce = ClaimId.newNonce();
        List<?> claimed =
            (List<?>)
                claim.run(
                    client,
                    List.of(order, index("claims", order), index("failed", order)),
                    List.of(
                        Long.toString(now),
                        Long.toString(now + ClaimCompleteBenchmark.LEASE.toMillis()),
                        nonce,
                        // the snapshot as the store packs it (HashCodec.snapshot)
                        String.join(
                            "\u001f",
                            sessionId,
                            "esim-eu-5gb",
                            "1",
                            "1999",
                            "usd",
                            "customer@example.com"),
                        sessionId));
        if (!"claimed".equals(text(claimed.get(0)))) {
          throw new IllegalStateException(
              "fresh order " + sessionId + " was not claimed: " + text(claimed.get(0)));
        }
        List<?> written =
            (List<?>)
                complete.run(
                    client,
                    List.of(
                        order,
                        order + ":orphans",
                        order + ":orphan-ids",
                        index("claims", order),
                        index("orphans", order)),
                    List.of(
                        "1",
                        nonce,
                        Long.toString(now),
                        Orders.ITEM.providerOrderId(),
                        "1",
                        Orders.ITEM.payload(),
                        sessionId,
                        "1")); // the store holds the record its claim answered: a lean answer
        if (!"written".equals(text(written.get(0)))) {
          throw new IllegalStateException(
              "the owner's complete of " + sessionId + " was refused: " + text(written.get(0)));
        }
      }

      @Override
      public void close() {}
    };
  }

  /** The text of a classpath resource given by its absolute path: the stores' Lua, and ours. */
  static String resource(String path) {
    try (InputStream in = RawRedis.class.getResourceAsStream(path)) {
      if (in == null) {
        throw new IllegalStateException(
            "resource %s is not on the classpath; rebuild the store modules and the benchmarks jar"
                .formatted(path));
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read resource " + path, e);
    }
  }

  /** A script's reply, a status or a bulk string, as text. */
  static String text(Object reply) {
    return reply instanceof byte[] bytes
        ? new String(bytes, StandardCharsets.UTF_8)
        : String.valueOf(reply);
  }

  @Override
  public void close() {
    client.close();
  }

  /** A script and its SHA-1; EVALSHA, and EVAL once on NOSCRIPT, as the store does. */
  private record Script(String source, String sha1) {

    /**
     * {@code <name>.lua} with {@code prelude.lua} after its first line and {@code helpers.lua} at
     * its line {@code -- helpers.lua}, as the store runs it.
     */
    static Script load(String name) {
      String script = resource(LUA + name + ".lua");
      int firstLine = script.indexOf('\n') + 1;
      String source =
          script.substring(0, firstLine)
              + resource(LUA + "prelude.lua")
              + script
                  .substring(firstLine)
                  .replace("-- helpers.lua\n", resource(LUA + "helpers.lua"));
      try {
        byte[] sha1 =
            MessageDigest.getInstance("SHA-1").digest(source.getBytes(StandardCharsets.UTF_8));
        return new Script(source, HexFormat.of().formatHex(sha1));
      } catch (NoSuchAlgorithmException e) {
        throw new IllegalStateException("this JVM has no SHA-1", e);
      }
    }

    Object run(UnifiedJedis client, List<String> keys, List<String> args) {
      try {
        return client.evalsha(sha1, keys, args);
      } catch (JedisNoScriptException e) {
        return client.eval(source, keys, args);
      }
    }
  }
}
