package org.fencekit.testsupport;

import java.net.URI;
import java.net.URISyntaxException;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import redis.clients.jedis.Connection;
import redis.clients.jedis.ConnectionPool;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;

/**
 * The Redis servers of fencekit's tests, a single node and a Redis Cluster, each found once per
 * JVM: its variable ({@value #NODE_VARIABLE}, {@value #CLUSTER_VARIABLE}), else a Testcontainers
 * {@value #IMAGE} when Docker is available, else none, and then every test that asks is skipped
 * saying how to enable it (or fails with {@code FENCEKIT_REQUIRE_BACKENDS=true}). A malformed
 * value, or one where no server answers, fails the tests naming the variable and showing a good
 * value.
 *
 * <p>Every key a test writes starts with a prefix of its own ({@link #newPrefix}), which {@link
 * #deleteKeys} removes afterwards from the node and from every master of the cluster:
 *
 * <pre>{@code
 * class MyTest {
 *   @RegisterExtension static final TestRedis.ClassKeys redis = TestRedis.node("webhooks");
 *
 *   @Test
 *   void works() {
 *     OrderStore store = RedisOrderStore.builder()
 *         .url(redis.address()).keyPrefix(redis.prefix()).build();   // TestRedis.cluster(...):
 *     ...                                                               // .clusterNodes(address())
 *   }
 * }
 * }</pre>
 */
public final class TestRedis {

  /** The environment variable naming a single node, as a URL. */
  public static final String NODE_VARIABLE = "FENCEKIT_REDIS_URL";

  /** The environment variable naming a Redis Cluster's seed nodes, {@code host:port,...}. */
  public static final String CLUSTER_VARIABLE = "FENCEKIT_REDIS_CLUSTER_NODES";

  /** The image Testcontainers runs when a variable is not set. */
  public static final String IMAGE = "redis:7.2";

  /** A good value of {@value #NODE_VARIABLE}. */
  public static final String EXAMPLE_URL = "redis://127.0.0.1:6379";

  /** A good value of {@value #CLUSTER_VARIABLE}. */
  public static final String EXAMPLE_NODES = "127.0.0.1:7001,127.0.0.1:7002,127.0.0.1:7003";

  private static final int TIMEOUT_MILLIS = 5000;
  private static final JedisClientConfig CLIENT =
      DefaultJedisClientConfig.builder().timeoutMillis(TIMEOUT_MILLIS).build();
  private static final SecureRandom RANDOM = new SecureRandom();
  private static final Pattern LABEL = Pattern.compile("[a-z0-9-]{1,40}");
  private static final Pattern HOST_PORT =
      Pattern.compile("([A-Za-z0-9.-]+|\\[[0-9A-Fa-f:.]+]):(\\d{1,5})");

  /** The single node of this JVM; {@code NODE.in(...)} is another, for tests. */
  static final Backend NODE =
      new Backend(
          "Redis",
          NODE_VARIABLE,
          EXAMPLE_URL,
          "a Redis 7 you started",
          IMAGE,
          System::getenv,
          TestRedis::checkNode,
          Docker.ifAvailable(RedisContainers::node));

  /** The cluster of this JVM; {@code CLUSTER.in(...)} is another, for tests. */
  static final Backend CLUSTER =
      new Backend(
          "Redis Cluster",
          CLUSTER_VARIABLE,
          EXAMPLE_NODES,
          "`bash .ci/redis-cluster.sh start` starts one and prints its nodes",
          IMAGE,
          System::getenv,
          TestRedis::checkCluster,
          Docker.ifAvailable(RedisContainers::cluster));

  private TestRedis() {}

  /**
   * Whether there is a single node; never skips.
   *
   * @throws IllegalStateException if {@value #NODE_VARIABLE} is malformed or no Redis answers
   *     there, or if there is none and {@code FENCEKIT_REQUIRE_BACKENDS=true}
   */
  public static boolean nodeAvailable() {
    return NODE.available();
  }

  /**
   * Whether there is a cluster; never skips.
   *
   * @throws IllegalStateException as {@link #nodeAvailable()}, for {@value #CLUSTER_VARIABLE}
   */
  public static boolean clusterAvailable() {
    return CLUSTER.available();
  }

  /**
   * The single node's URL, e.g. {@value #EXAMPLE_URL}; skips the calling test if there is none.
   *
   * @throws IllegalStateException as {@link #nodeAvailable()}
   */
  public static String nodeUrl() {
    return NODE.address();
  }

  /**
   * The cluster's seed nodes, {@code host:port,...}; skips the calling test if there is none.
   *
   * @throws IllegalStateException as {@link #clusterAvailable()}
   */
  public static String clusterNodes() {
    return CLUSTER.address();
  }

  /** The cluster's seed nodes as a set; skips the calling test if there is none. */
  public static Set<HostAndPort> clusterNodeSet() {
    return parseNodes(clusterNodes());
  }

  /** A cluster client of the test's own (close it); skips the calling test if there is none. */
  public static RedisClusterClient clusterClient() {
    return RedisClusterClient.builder().nodes(clusterNodeSet()).clientConfig(CLIENT).build();
  }

  /**
   * Runs {@code action} on a direct connection to each master of the cluster; skips the calling
   * test if there is none.
   */
  public static void eachClusterMaster(Consumer<Jedis> action) {
    try (RedisClusterClient client = clusterClient()) {
      for (Map.Entry<String, ConnectionPool> node : client.getClusterNodes().entrySet()) {
        try (Connection connection = node.getValue().getResource();
            Jedis jedis = new Jedis(connection)) {
          if (jedis.role().get(0).equals("master")) {
            action.accept(jedis);
          }
        }
      }
    }
  }

  /**
   * A key prefix no other test or run uses, e.g. {@code fencekit-test-1a2b3c4d-tck:}.
   *
   * @param label what the keys are for: 1 to 40 of {@code a-z}, {@code 0-9} and {@code -}
   * @throws IllegalArgumentException if the label is not such
   */
  public static String newPrefix(String label) {
    if (label == null || !LABEL.matcher(label).matches()) {
      throw new IllegalArgumentException(
          "label must be 1 to 40 of a-z, 0-9 and '-', e.g. \"tck\"; it is " + label);
    }
    byte[] bytes = new byte[4];
    RANDOM.nextBytes(bytes);
    return "fencekit-test-" + HexFormat.of().formatHex(bytes) + "-" + label + ":";
  }

  /**
   * Deletes every key starting with {@code prefix} from the single node and from every master of
   * the cluster, wherever this JVM found one (a server never looked for holds no keys of this run);
   * never skips.
   */
  public static void deleteKeys(String prefix) {
    if (prefix == null || prefix.isEmpty()) {
      throw new IllegalArgumentException("prefix must not be empty: that would delete every key");
    }
    NODE.resolvedAddress()
        .ifPresent(
            url -> {
              try (Jedis jedis = new Jedis(URI.create(url))) {
                deleteKeys(jedis, prefix);
              }
            });
    if (CLUSTER.resolvedAddress().isPresent()) {
      eachClusterMaster(jedis -> deleteKeys(jedis, prefix));
    }
  }

  /** The keys starting with {@code prefix} on the node {@code jedis} is connected to (SCAN). */
  public static List<String> scan(Jedis jedis, String prefix) {
    List<String> keys = new ArrayList<>();
    ScanParams params = new ScanParams().match(prefix + "*").count(500);
    String cursor = ScanParams.SCAN_POINTER_START;
    do {
      ScanResult<String> page = jedis.scan(cursor, params);
      keys.addAll(page.getResult());
      cursor = page.getCursor();
    } while (!cursor.equals(ScanParams.SCAN_POINTER_START));
    return keys;
  }

  /**
   * An extension (register it with {@code @RegisterExtension} on a static field) giving a test
   * class the single node's URL and a fresh key prefix; each test is skipped (or fails) as {@link
   * #nodeUrl()} says when there is no node, and the prefix's keys are deleted after the class.
   *
   * @param label as {@link #newPrefix}
   */
  public static ClassKeys node(String label) {
    return new ClassKeys(NODE, newPrefix(label));
  }

  /**
   * As {@link #node}, for the cluster: {@link ClassKeys#address()} is {@code host:port,...}.
   *
   * @param label as {@link #newPrefix}
   */
  public static ClassKeys cluster(String label) {
    return new ClassKeys(CLUSTER, newPrefix(label));
  }

  /** The server and key prefix of {@link #node} or {@link #cluster}. */
  public static final class ClassKeys extends PerClass {

    private final String prefix;

    private ClassKeys(Backend server, String prefix) {
      super(server);
      this.prefix = prefix;
    }

    /**
     * The node's URL or the cluster's {@code host:port,...}; skips the test if there is none.
     *
     * @throws IllegalStateException as {@link #nodeAvailable()}
     */
    public String address() {
      return server.address();
    }

    /** The prefix every key of this test class starts with. */
    public String prefix() {
      return prefix;
    }

    /** Nothing to set up: the tests write the keys. */
    @Override
    boolean setUp() {
      return true;
    }

    /** Deletes the prefix's keys. */
    @Override
    void cleanUp() {
      deleteKeys(prefix);
    }
  }

  private static void deleteKeys(Jedis jedis, String prefix) {
    for (String key : scan(jedis, prefix)) {
      jedis.del(key); // one at a time: keys of different slots may not share a DEL on a cluster
    }
  }

  /** A value of {@value #NODE_VARIABLE} that is a Redis URL where a server answers PING. */
  private static String checkNode(String url) {
    URI uri;
    try {
      uri = new URI(url);
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException("not a URI (" + e.getReason() + ")");
    }
    if (!"redis".equals(uri.getScheme()) && !"rediss".equals(uri.getScheme())) {
      throw new IllegalArgumentException("a Redis URL starts with redis:// or rediss://");
    }
    if (uri.getHost() == null || uri.getPort() == 0 || uri.getPort() > 65535) {
      throw new IllegalArgumentException("a Redis URL names a host and, optionally, a port");
    }
    try (Jedis jedis = new Jedis(uri, TIMEOUT_MILLIS)) {
      jedis.ping();
    } catch (RuntimeException e) {
      throw new IllegalStateException(e.toString());
    }
    return url;
  }

  /**
   * A value of {@value #CLUSTER_VARIABLE} that lists {@code host:port} nodes, one of which answers
   * as a cluster whose state is ok.
   */
  private static String checkCluster(String nodes) {
    Set<HostAndPort> parsed = parseNodes(nodes);
    String failure = null;
    for (HostAndPort node : parsed) {
      try (Jedis jedis = new Jedis(node, CLIENT)) {
        String info = jedis.clusterInfo();
        if (info.contains("cluster_state:ok")) {
          return String.join(",", parsed.stream().map(HostAndPort::toString).toList());
        }
        failure = node + " answers but its cluster state is not ok";
      } catch (RuntimeException e) {
        failure = node + ": " + e;
      }
    }
    throw new IllegalStateException(failure);
  }

  private static Set<HostAndPort> parseNodes(String nodes) {
    Set<HostAndPort> parsed = new LinkedHashSet<>();
    for (String node : nodes.split(",", -1)) {
      Matcher matcher = HOST_PORT.matcher(node.trim());
      int port = matcher.matches() ? Integer.parseInt(matcher.group(2)) : 0;
      if (port < 1 || port > 65535) {
        throw new IllegalArgumentException(
            "'" + node.trim() + "' is not host:port; the nodes are host:port separated by commas");
      }
      parsed.add(new HostAndPort(matcher.group(1), port));
    }
    return parsed;
  }
}
