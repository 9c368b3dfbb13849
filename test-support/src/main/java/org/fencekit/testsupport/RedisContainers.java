package org.fencekit.testsupport;

import java.util.ArrayList;
import java.util.List;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.utility.DockerImageName;

/**
 * Redis in Testcontainers, for a run without the variables: a single node and a cluster; called
 * only when Docker is available.
 */
final class RedisContainers {

  private RedisContainers() {}

  /** A node without persistence. */
  static String node() {
    GenericContainer<?> redis =
        new GenericContainer<>(DockerImageName.parse(TestRedis.IMAGE))
            .withCommand("redis-server", "--save", "", "--appendonly", "no")
            .withExposedPorts(6379)
            .waitingFor(Wait.forLogMessage(".*Ready to accept connections.*", 1));
    redis.start(); // stopped by Testcontainers' reaper when the JVM exits
    return "redis://" + redis.getHost() + ":" + redis.getMappedPort(6379);
  }

  /**
   * Three masters in one container. Each listens on the same port number inside and outside (free
   * ports of this host, bound one to one) and announces 127.0.0.1, so the slot map the cluster
   * hands out is reachable from the host.
   */
  static String cluster() {
    int[] ports = new int[3];
    for (int i = 0; i < ports.length; i++) {
      ports[i] = LoopbackPorts.closed(); // never the same one twice
    }
    GenericContainer<?> cluster =
        new GenericContainer<>(DockerImageName.parse(TestRedis.IMAGE))
            .withCommand("sh", "-c", clusterScript(ports) + "; exec tail -f /dev/null")
            .waitingFor(Wait.forLogMessage(".*FENCEKIT-CLUSTER-READY.*", 1));
    List<String> bindings = new ArrayList<>();
    for (int port : ports) {
      bindings.add(port + ":" + port);
    }
    cluster.setPortBindings(bindings);
    cluster.start();
    return "127.0.0.1:" + ports[0] + ",127.0.0.1:" + ports[1] + ",127.0.0.1:" + ports[2];
  }

  /**
   * The shell script that starts three cluster nodes on {@code ports}, joins them and prints {@code
   * FENCEKIT-CLUSTER-READY} once the cluster state is ok. Each bus port is set apart (16379 + i):
   * an ephemeral port + 10000 may not exist.
   */
  private static String clusterScript(int[] ports) {
    StringBuilder script = new StringBuilder("set -e; ");
    StringBuilder nodes = new StringBuilder();
    for (int i = 0; i < ports.length; i++) {
      script
          .append("redis-server --port ")
          .append(ports[i])
          .append(" --bind 0.0.0.0 --protected-mode no --cluster-port ")
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
