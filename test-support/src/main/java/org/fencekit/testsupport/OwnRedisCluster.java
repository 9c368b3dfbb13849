package org.fencekit.testsupport;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * A Redis Cluster of a fault test's own: three masters with one replica each, on free loopback
 * ports (each with its bus port, +10000), node timeout 5 s so a killed master's replica takes over
 * in seconds. The test may fail over, kill a master and migrate slots under load; never the shared
 * cluster.
 */
public final class OwnRedisCluster implements AutoCloseable {

  private static final int NODES = 6;

  private final List<OwnRedis> nodes;

  private OwnRedisCluster(List<OwnRedis> nodes) {
    this.nodes = nodes;
  }

  /** Starts six nodes and joins them into a cluster with one replica per master. */
  public static OwnRedisCluster start() {
    OwnServer.requireBinary(OwnRedis.SERVER, "a Redis Cluster of the test's own");
    List<OwnRedis> nodes = new ArrayList<>();
    OwnRedisCluster cluster = new OwnRedisCluster(nodes);
    try {
      for (int i = 0; i < NODES; i++) {
        nodes.add(
            OwnRedis.start(
                LoopbackPorts.closedWith(10_000),
                "--cluster-enabled",
                "yes",
                "--cluster-config-file",
                "nodes.conf",
                // 5 s, not 1: a failure report lives twice this long, and on two cores loaded by
                // a whole build reports of a dead master expired before most masters agreed on it
                // (the replica was then never promoted), while healthy nodes were marked failing
                "--cluster-node-timeout",
                "5000"));
      }
      List<String> create = new ArrayList<>(List.of("redis-cli", "--cluster", "create"));
      for (OwnRedis node : nodes) {
        create.add("127.0.0.1:" + node.port());
      }
      create.addAll(List.of("--cluster-replicas", "1", "--cluster-yes"));
      OwnServer.run(60, create);
      cluster.awaitHealthy(30_000);
    } catch (RuntimeException e) {
      cluster.close();
      throw e;
    }
    return cluster;
  }

  /** The seed nodes, {@code host:port,...}, as {@code RedisOrderStore.builder().clusterNodes}. */
  public String seeds() {
    return nodes.stream().map(n -> "127.0.0.1:" + n.port()).collect(Collectors.joining(","));
  }

  /** Every node, masters and replicas. */
  public List<OwnRedis> nodes() {
    return List.copyOf(nodes);
  }

  /** The nodes that are masters now. */
  public List<OwnRedis> masters() {
    List<OwnRedis> masters = new ArrayList<>();
    for (OwnRedis node : nodes) {
      if (node.answers() && role(node).equals("master")) {
        masters.add(node);
      }
    }
    return masters;
  }

  /** A replica of {@code master} now, or fails. */
  public OwnRedis replicaOf(OwnRedis master) {
    for (OwnRedis node : nodes) {
      if (node.answers()
          && role(node).equals("slave")
          && replication(node, "master_port") == master.port()) {
        return node;
      }
    }
    throw new IllegalStateException("no replica of " + master + " in " + this);
  }

  /**
   * {@code CLUSTER FAILOVER} on a replica of {@code master}: the replica waits until it has
   * everything the master acknowledged, then takes over; returns once the cluster is healthy.
   */
  public OwnRedis failover(OwnRedis master) {
    OwnRedis replica = replicaOf(master);
    replica.command("CLUSTER", "FAILOVER");
    if (!OwnServer.poll(20_000, 50, () -> role(replica).equals("master"))) {
      throw new IllegalStateException(replica + " did not take over from " + master);
    }
    awaitHealthy(20_000);
    return replica;
  }

  /**
   * Kills {@code master} with SIGKILL once its replica has everything the master acknowledged (the
   * master's clients are paused for writes meanwhile, so nothing acknowledged is lost to the async
   * replication that a crash inside its window would lose); waits until the replica has taken over
   * and the cluster is healthy, then starts the killed node again, which rejoins as a replica.
   */
  public void killMaster(OwnRedis master) {
    awaitHealthy(30_000); // every replica linked to its master, or there is no one to take over
    OwnRedis replica = replicaOf(master);
    master.command("CLIENT", "PAUSE", "5000", "WRITE");
    if (!OwnServer.poll(
        5_000, 5, () -> offset(master) == replication(replica, "slave_repl_offset"))) {
      master.command("CLIENT", "UNPAUSE");
      throw new IllegalStateException(
          replica
              + " did not catch up with "
              + master
              + " in 5 s (replica at "
              + replication(replica, "slave_repl_offset")
              + ", master at "
              + offset(master)
              + "); the master was not killed, as acknowledged writes would have been lost");
    }
    master.kill();
    boolean promoted = OwnServer.poll(30_000, 50, () -> role(replica).equals("master"));
    // the replica's own account, without its once-a-second attempts to reach the dead master
    String why = promoted ? "" : replica.logTail(25, line -> !line.contains("SYNC"));
    master.launch(); // promoted or not, the cluster gets its node back for the next test
    if (!promoted) {
      throw new IllegalStateException(
          replica + " was not promoted after " + master + " died; its log ends:\n" + why);
    }
    awaitHealthy(30_000);
  }

  private static long offset(OwnRedis master) {
    return replication(master, "master_repl_offset");
  }

  /**
   * Moves {@code slot} from its master to {@code target} live: IMPORTING and MIGRATING, every key
   * MIGRATEd in batches (clients meanwhile get ASK, and TRYAGAIN for a script whose keys are split
   * between the two), then the slot assigned to {@code target} on every master.
   *
   * @return how many keys moved
   */
  public int migrateSlot(int slot, OwnRedis target) {
    OwnRedis source = masterOf(slot);
    if (source.port() == target.port()) {
      return 0;
    }
    startMigration(slot, target);
    String s = Integer.toString(slot);
    int moved = 0;
    while (true) {
      List<?> list = (List<?>) source.command("CLUSTER", "GETKEYSINSLOT", s, "10");
      if (list.isEmpty()) {
        break;
      }
      List<String> args =
          new ArrayList<>(
              List.of(
                  "MIGRATE",
                  "127.0.0.1",
                  Integer.toString(target.port()),
                  "",
                  "0",
                  "5000",
                  "KEYS"));
      for (Object key : list) {
        args.add(OwnRedis.text(key));
      }
      source.command(args.toArray(String[]::new));
      moved += list.size();
      OwnServer.pause(2); // leave the slot half moved a little: clients see ASK and TRYAGAIN
    }
    finishMigration(slot, target);
    return moved;
  }

  /** Marks {@code slot} IMPORTING on {@code target} and MIGRATING on its master; moves no key. */
  public void startMigration(int slot, OwnRedis target) {
    OwnRedis source = masterOf(slot);
    String s = Integer.toString(slot);
    target.command("CLUSTER", "SETSLOT", s, "IMPORTING", id(source));
    source.command("CLUSTER", "SETSLOT", s, "MIGRATING", id(target));
  }

  /** MIGRATEs one key of a migrating {@code slot} to {@code target}. */
  public void migrateKey(int slot, OwnRedis target, String key) {
    masterOf(slot)
        .command("MIGRATE", "127.0.0.1", Integer.toString(target.port()), key, "0", "5000");
  }

  /** Moves what is left of {@code slot} and assigns it to {@code target} on every master. */
  public void finishMigration(int slot, OwnRedis target) {
    OwnRedis source = masterOf(slot);
    String s = Integer.toString(slot);
    while (true) {
      List<?> list = (List<?>) source.command("CLUSTER", "GETKEYSINSLOT", s, "100");
      if (list.isEmpty()) {
        break;
      }
      for (Object key : list) {
        migrateKey(slot, target, OwnRedis.text(key));
      }
    }
    for (OwnRedis master : masters()) {
      master.command("CLUSTER", "SETSLOT", s, "NODE", id(target));
    }
  }

  private static String id(OwnRedis node) {
    return OwnRedis.text(node.command("CLUSTER", "MYID"));
  }

  /** The master serving {@code slot} now. */
  public OwnRedis masterOf(int slot) {
    for (OwnRedis master : masters()) {
      List<?> ranges = (List<?>) master.command("CLUSTER", "SLOTS");
      for (Object range : ranges) {
        List<?> r = (List<?>) range;
        long from = (Long) r.get(0);
        long to = (Long) r.get(1);
        List<?> owner = (List<?>) r.get(2);
        if (slot >= from && slot <= to) {
          long port = (Long) owner.get(1);
          for (OwnRedis node : nodes) {
            if (node.port() == port) {
              return node;
            }
          }
        }
      }
    }
    throw new IllegalStateException("no master serves slot " + slot);
  }

  /** The slot of {@code key} ({@code CLUSTER KEYSLOT}). */
  public int slotOf(String key) {
    return ((Long) nodes.get(0).command("CLUSTER", "KEYSLOT", key)).intValue();
  }

  /**
   * Waits until every live node says cluster_state:ok, all slots are served and every replica's
   * link to its master is up: a replica still in its first sync cannot take over from a master that
   * dies (it refuses, as "disconnected from master for longer than allowed").
   */
  public void awaitHealthy(long millis) {
    if (!OwnServer.poll(millis, 100, this::healthy)) {
      throw new IllegalStateException("the cluster " + seeds() + " did not become healthy");
    }
  }

  private boolean healthy() {
    for (OwnRedis node : nodes) {
      if (node.answers()) {
        String info = OwnRedis.text(node.command("CLUSTER", "INFO"));
        if (!info.contains("cluster_state:ok") || !info.contains("cluster_slots_ok:16384")) {
          return false;
        }
        String replication = OwnRedis.text(node.command("INFO", "replication"));
        if (replication.contains("role:slave") && !replication.contains("master_link_status:up")) {
          return false;
        }
      }
    }
    return true;
  }

  private static String role(OwnRedis node) {
    List<?> role = (List<?>) node.command("ROLE");
    return OwnRedis.text(role.get(0));
  }

  /** A numeric field of {@code INFO replication}, or -1 without it. */
  private static long replication(OwnRedis node, String field) {
    String info = OwnRedis.text(node.command("INFO", "replication"));
    for (String line : info.split("\r\n")) {
      if (line.startsWith(field + ":")) {
        return Long.parseLong(line.substring(field.length() + 1).trim());
      }
    }
    return -1;
  }

  /** Stops every node and deletes their directories. */
  @Override
  public void close() {
    for (OwnRedis node : nodes) {
      node.close();
    }
  }

  @Override
  public String toString() {
    return "OwnRedisCluster[" + seeds() + "]";
  }
}
