package org.fencekit.store.redis;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.fencekit.store.ClaimId;
import org.junit.jupiter.api.Assumptions;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.utility.DockerImageName;
import redis.clients.jedis.Connection;
import redis.clients.jedis.ConnectionPool;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;

/**
 * Where the tests find Redis, as for PostgreSQL:
 *
 * <ol>
 *   <li>{@code FENCEKIT_REDIS_URL} (e.g. {@code redis://127.0.0.1:6379}) for a single node and
 *       {@code FENCEKIT_REDIS_CLUSTER_NODES} (e.g. {@code
 *       127.0.0.1:7001,127.0.0.1:7002,127.0.0.1:7003}) for a cluster ({@code bash
 *       .ci/redis-cluster.sh start} prints one);
 *   <li>else a Testcontainers container when Docker is available;
 *   <li>else the tests are skipped with a message saying how to enable them, or fail if {@code
 *       FENCEKIT_REQUIRE_BACKENDS=true}.
 * </ol>
 *
 * Every key a test writes starts with {@link #prefix}, random per run, and {@link #deleteKeys}
 * removes them by SCAN on every master.
 */
final class RedisBackends {

  private static final String IMAGE = "redis:7.2";
  private static final String RUN = ClaimId.newNonce().substring(0, 8);

  private static Optional<String> nodeUrl;
  private static Optional<String> clusterNodes;

  private RedisBackends() {}

  /**
   * A key prefix unique to this run and {@code label}, e.g. {@code fencekit-test-1a2b3c4d-tck:}.
   */
  static String prefix(String label) {
    return "fencekit-test-" + RUN + "-" + label + ":";
  }

  /** The single node's URL, or a skipped (or, when required, failed) test. */
  static synchronized String nodeUrl() {
    if (nodeUrl == null) {
      nodeUrl = Optional.ofNullable(env("FENCEKIT_REDIS_URL")).or(RedisBackends::nodeContainer);
    }
    return nodeUrl.orElseGet(
        () ->
            missing(
                "single Redis node",
                "set FENCEKIT_REDIS_URL=redis://127.0.0.1:6379 (a Redis 7 you started)"));
  }

  /** The cluster's seed nodes, resolved once (env, else a container), or empty if there is none. */
  static synchronized Optional<String> resolveCluster() {
    if (clusterNodes == null) {
      clusterNodes =
          Optional.ofNullable(env("FENCEKIT_REDIS_CLUSTER_NODES"))
              .or(RedisBackends::clusterContainer);
    }
    return clusterNodes;
  }

  /** The cluster's seed nodes, {@code host:port,...}, or a skipped (or failed) test. */
  static String clusterNodes() {
    return resolveCluster()
        .orElseGet(
            () ->
                missing(
                    "Redis Cluster",
                    "run `bash .ci/redis-cluster.sh start` and set FENCEKIT_REDIS_CLUSTER_NODES to the line it prints"));
  }

  /** The cluster's nodes as a set. */
  static Set<HostAndPort> clusterNodeSet() {
    Set<HostAndPort> nodes = new LinkedHashSet<>();
    for (String node : clusterNodes().split(",")) {
      nodes.add(HostAndPort.from(node.trim()));
    }
    return nodes;
  }

  /** A cluster client of the test's own, for inspecting the cluster. */
  static RedisClusterClient clusterClient() {
    return RedisClusterClient.builder()
        .nodes(clusterNodeSet())
        .clientConfig(DefaultJedisClientConfig.builder().timeoutMillis(5000).build())
        .build();
  }

  /**
   * Each cluster master's count of CROSSSLOT error replies so far (INFO errorstats), by node id;
   * empty if there is no cluster.
   */
  static Map<String, Long> crossSlotErrors() {
    Map<String, Long> counts = new HashMap<>();
    if (resolveCluster().isEmpty()) {
      return counts;
    }
    try (RedisClusterClient client = clusterClient()) {
      for (ConnectionPool pool : client.getClusterNodes().values()) {
        try (Connection connection = pool.getResource();
            Jedis jedis = new Jedis(connection)) {
          long count = 0;
          for (String line : jedis.info("errorstats").split("\r?\n")) {
            if (line.startsWith("errorstat_CROSSSLOT:count=")) {
              count = Long.parseLong(line.substring("errorstat_CROSSSLOT:count=".length()).trim());
            }
          }
          counts.put(jedis.clusterMyId(), count);
        }
      }
    }
    return counts;
  }

  /**
   * Deletes every key starting with {@code prefix} on the node, or on every master of the cluster.
   */
  static synchronized void deleteKeys(boolean cluster, String prefix) {
    if (cluster
        ? clusterNodes == null || clusterNodes.isEmpty()
        : nodeUrl == null || nodeUrl.isEmpty()) {
      return; // never resolved, or skipped: nothing was written
    }
    if (cluster) {
      try (RedisClusterClient client = clusterClient()) {
        for (Map.Entry<String, ConnectionPool> node : client.getClusterNodes().entrySet()) {
          try (Connection connection = node.getValue().getResource();
              Jedis jedis = new Jedis(connection)) {
            if (jedis.role().get(0).equals("master")) {
              deleteKeys(jedis, prefix);
            }
          }
        }
      }
    } else {
      try (Jedis jedis = new Jedis(URI.create(nodeUrl.get()))) {
        deleteKeys(jedis, prefix);
      }
    }
  }

  /** The keys starting with {@code prefix} on one node. */
  static List<String> scan(Jedis jedis, String prefix) {
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

  private static void deleteKeys(Jedis jedis, String prefix) {
    for (String key : scan(jedis, prefix)) {
      jedis.del(
          key); // one at a time: keys of different slots may not share a DEL on a cluster node
    }
  }

  /** A loopback port nothing listens on (bound, then released). */
  static int closedPort() {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new IllegalStateException("cannot find a free loopback port", e);
    }
  }

  private static String env(String name) {
    String value = System.getenv(name);
    return value == null || value.isBlank() ? null : value.trim();
  }

  private static <T> T missing(String what, String howTo) {
    String message =
        "no "
            + what
            + " for the store-redis tests: "
            + howTo
            + ", or make Docker"
            + " available for Testcontainers";
    if ("true".equalsIgnoreCase(System.getenv("FENCEKIT_REQUIRE_BACKENDS"))) {
      fail(message + " (FENCEKIT_REQUIRE_BACKENDS=true makes a missing backend a failure)");
    }
    Assumptions.abort(message);
    throw new AssertionError("unreachable");
  }

  private static boolean dockerAvailable() {
    try {
      return DockerClientFactory.instance().isDockerAvailable();
    } catch (RuntimeException | LinkageError e) {
      return false;
    }
  }

  private static Optional<String> nodeContainer() {
    if (!dockerAvailable()) {
      return Optional.empty();
    }
    GenericContainer<?> redis =
        new GenericContainer<>(DockerImageName.parse(IMAGE))
            .withCommand("redis-server", "--save", "", "--appendonly", "no")
            .withExposedPorts(6379)
            .waitingFor(Wait.forLogMessage(".*Ready to accept connections.*", 1));
    redis.start(); // stopped by Testcontainers' reaper when the JVM exits
    return Optional.of("redis://" + redis.getHost() + ":" + redis.getMappedPort(6379));
  }

  /**
   * Three masters in one container. Each listens on the same port number inside and outside (free
   * ports of this host, bound one to one) and announces 127.0.0.1, so the slot map the cluster
   * hands out is reachable from the host.
   */
  private static Optional<String> clusterContainer() {
    if (!dockerAvailable()) {
      return Optional.empty();
    }
    int[] ports = new int[3];
    for (int i = 0; i < ports.length; i++) {
      do {
        ports[i] = closedPort();
      } while (i > 0 && (ports[i] == ports[0] || ports[i] == ports[i - 1]));
    }
    String nodes = "127.0.0.1:" + ports[0] + ",127.0.0.1:" + ports[1] + ",127.0.0.1:" + ports[2];
    GenericContainer<?> cluster =
        new GenericContainer<>(DockerImageName.parse(IMAGE))
            .withCommand("sh", "-c", clusterScript(ports, "0.0.0.0") + "; exec tail -f /dev/null")
            .waitingFor(Wait.forLogMessage(".*FENCEKIT-CLUSTER-READY.*", 1));
    List<String> bindings = new ArrayList<>();
    for (int port : ports) {
      bindings.add(port + ":" + port);
    }
    cluster.setPortBindings(bindings);
    cluster.start();
    return Optional.of(nodes);
  }

  /**
   * The shell script that starts three cluster nodes on {@code ports} in the current directory,
   * joins them and prints {@code FENCEKIT-CLUSTER-READY} once the cluster state is ok. Each bus
   * port is set apart (16379 + i): an ephemeral port + 10000 may not exist.
   */
  static String clusterScript(int[] ports, String bind) {
    StringBuilder script = new StringBuilder("set -e; ");
    StringBuilder nodes = new StringBuilder();
    for (int i = 0; i < ports.length; i++) {
      script
          .append("redis-server --port ")
          .append(ports[i])
          .append(" --bind ")
          .append(bind)
          .append(" --protected-mode no --cluster-port ")
          .append(16379 + i)
          .append(" --cluster-enabled yes --cluster-config-file nodes-")
          .append(ports[i])
          .append(".conf")
          .append(" --cluster-announce-ip 127.0.0.1 --save '' --appendonly no --daemonize yes; ");
      nodes.append(' ').append("127.0.0.1:").append(ports[i]);
    }
    for (int port : ports) {
      script.append("until redis-cli -p ").append(port).append(" ping; do sleep 0.1; done; ");
    }
    return script
        .append("redis-cli --cluster create")
        .append(nodes)
        .append(" --cluster-replicas 0 --cluster-yes; ")
        .append("until redis-cli -p ")
        .append(ports[0])
        .append(" cluster info | grep -q cluster_state:ok; do sleep 0.2; done; ")
        .append("echo FENCEKIT-CLUSTER-READY")
        .toString();
  }
}
