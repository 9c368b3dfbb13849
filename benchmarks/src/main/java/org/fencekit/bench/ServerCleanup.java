package org.fencekit.bench;

import java.net.URI;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;

/**
 * Removes what one benchmark run wrote to a shared server, so runs do not pile orders up in a
 * database or a Redis that tests use too. Every order of a run has a session id starting with its
 * prefix ({@link Orders#newRunPrefix()}); nothing else is touched. The embedded stores need
 * nothing: their data dies with the run.
 */
final class ServerCleanup {

  private ServerCleanup() {}

  /** Deletes the orders (and orphans) whose session id starts with {@code runPrefix}. */
  static void forget(StoreType type, String runPrefix) {
    if (!runPrefix.matches("bench_[0-9a-f]{8}_")) {
      throw new IllegalArgumentException(
          "runPrefix must come from Orders.newRunPrefix(), got " + runPrefix);
    }
    switch (type) {
      case POSTGRES:
      case POSTGRES_LOCKING:
        deleteRows(type.setting(), runPrefix);
        break;
      case REDIS:
        try (Jedis node = new Jedis(URI.create(type.setting()))) {
          unlinkKeys(node, runPrefix);
        }
        break;
      case REDIS_CLUSTER:
        for (HostAndPort master : masters(type.setting())) {
          try (Jedis node = new Jedis(master)) {
            unlinkKeys(node, runPrefix);
          }
        }
        break;
      default:
        break;
    }
  }

  private static void deleteRows(String jdbcUrl, String runPrefix) {
    try (Connection connection = DriverManager.getConnection(jdbcUrl)) {
      for (String table : List.of("fencekit_orphans", "fencekit_orders")) {
        try (PreparedStatement delete =
            connection.prepareStatement("DELETE FROM " + table + " WHERE session_id LIKE ?")) {
          delete.setString(1, runPrefix + "%");
          delete.executeUpdate();
        }
      }
    } catch (SQLException e) {
      throw new IllegalStateException(
          "could not delete the benchmark's orders ("
              + runPrefix
              + "*) from PostgreSQL: "
              + e.getMessage(),
          e);
    }
  }

  /** Keys are {@code fencekit:{<sessionId>}...}; the prefix holds no glob character. */
  private static void unlinkKeys(Jedis node, String runPrefix) {
    ScanParams match = new ScanParams().match("fencekit:{" + runPrefix + "*").count(1000);
    String cursor = ScanParams.SCAN_POINTER_START;
    do {
      ScanResult<String> page = node.scan(cursor, match);
      for (String key : page.getResult()) {
        node.unlink(key); // one key at a time: on a cluster node, keys of one page span slots
      }
      cursor = page.getCursor();
    } while (!cursor.equals(ScanParams.SCAN_POINTER_START));
  }

  /** The cluster's masters, learned from the first seed node that answers CLUSTER NODES. */
  private static Set<HostAndPort> masters(String seeds) {
    RuntimeException last = null;
    for (String seed : seeds.split(",")) {
      HostAndPort node = HostAndPort.from(seed.trim());
      try (Jedis jedis = new Jedis(node)) {
        Set<HostAndPort> masters = new LinkedHashSet<>();
        for (String line : jedis.clusterNodes().split("\n")) {
          String[] fields = line.trim().split(" ");
          if (fields.length > 2 && fields[2].contains("master") && !fields[2].contains("fail")) {
            masters.add(HostAndPort.from(fields[1].split("@")[0]));
          }
        }
        return masters;
      } catch (RuntimeException e) {
        last = e;
      }
    }
    throw new IllegalStateException(
        "no Redis Cluster seed node in '" + seeds + "' answered CLUSTER NODES", last);
  }
}
