package org.fencekit.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.fencekit.store.ClaimResult;
import org.fencekit.store.OrderStore;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

/**
 * Every store the main job opens writes inside a namespace of its own, and nothing of a run is left
 * on a server once it ends. Against the real servers; skipped when their variables are unset.
 */
class NamespaceTest {

  private static void claimOne(OrderStore store) {
    ClaimResult claim = store.claim(Orders.snapshot("ns_test_order"), Duration.ofMinutes(1));
    assertTrue(claim instanceof ClaimResult.Claimed, claim.toString());
  }

  private static long count(String jdbcUrl, String sql) throws SQLException {
    try (Connection c = DriverManager.getConnection(jdbcUrl);
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  @Test
  @DisplayName("a PostgreSQL store writes in the namespace's own schema, and drop removes it")
  void postgres() throws SQLException {
    Map<String, String> env = TestServers.env(Server.POSTGRES);
    String url = env.get(Server.POSTGRES.variable());
    for (StoreType type : List.of(StoreType.POSTGRES, StoreType.POSTGRES_LOCKING)) {
      Namespace namespace = Namespace.fresh();
      try (OrderStore store = type.open(Clock.systemUTC(), namespace, env, 4)) {
        claimOne(store);
      }
      assertEquals(
          1, count(url, "SELECT count(*) FROM " + namespace.schema() + ".fencekit_orders"));
      namespace.drop(Server.POSTGRES, env);
      assertEquals(
          0,
          count(
              url,
              "SELECT count(*) FROM pg_namespace WHERE nspname = '" + namespace.schema() + "'"),
          type.label());
    }
  }

  @Test
  @DisplayName(
      "a MySQL store writes in the namespace's own database, drop removes it, and sweep what a"
          + " trial left")
  void mysql() throws SQLException {
    Map<String, String> env = TestServers.env(Server.MYSQL);
    String url = env.get(Server.MYSQL.variable());
    for (StoreType type : List.of(StoreType.MYSQL, StoreType.MYSQL_DATASOURCE)) {
      Namespace namespace = Namespace.fresh();
      try (OrderStore store = type.open(Clock.systemUTC(), namespace, env, 4)) {
        claimOne(store);
      }
      assertEquals(
          1, count(url, "SELECT count(*) FROM " + namespace.database() + ".fencekit_orders"));
      assertEquals(List.of(namespace.database()), leftoverDatabases(url, namespace));
      namespace.drop(Server.MYSQL, env);
      assertEquals(List.of(), leftoverDatabases(url, namespace), type.label());
    }
    // a trial whose fork died before its teardown: the run's sweep drops its database
    Namespace orphan = new Namespace(Namespace.newId(), Namespace.newId());
    try (PeerLock peer = Peer.SHEDLOCK_JDBC_MYSQL.open(orphan, env, 1)) {
      peer.session(0).lockUnlock();
    }
    assertEquals(
        1, count(url, "SELECT count(*) FROM " + orphan.database() + ".shedlock"), "no lock row");
    Namespace.sweep(orphan.run(), env);
    assertEquals(List.of(), Namespace.SqlNamespace.DATABASE.leftover(url, orphan.run()), "swept");
  }

  /** The databases of {@code namespace}'s run on the MySQL server, its own among them. */
  private static List<String> leftoverDatabases(String url, Namespace namespace) {
    return Namespace.SqlNamespace.DATABASE.leftover(url, namespace.run()).stream()
        .filter(namespace.database()::equals)
        .toList();
  }

  @Test
  @DisplayName("a MySQL URL names the namespace's database in place of its own, parameters kept")
  void mysqlUrl() {
    assertEquals(
        "jdbc:mysql://127.0.0.1:3306/fencekit_bench_x?user=root&useSSL=false",
        Namespace.withDatabase(
            "jdbc:mysql://127.0.0.1:3306/test?user=root&useSSL=false", "fencekit_bench_x"));
    assertEquals(
        "jdbc:mysql://db/fencekit_bench_x",
        Namespace.withDatabase("jdbc:mysql://db", "fencekit_bench_x"));
    assertEquals(
        "jdbc:mysql://db/fencekit_bench_x?user=u",
        Namespace.withDatabase("jdbc:mysql://db?user=u", "fencekit_bench_x"));
    assertEquals(
        "jdbc:mysql://db:3306/shop", Namespace.mysqlDriverUrl("jdbc:mariadb://db:3306/shop"));
  }

  @Test
  @DisplayName(
      "a Redis store writes under the namespace's own key prefix, and drop removes its keys")
  void redis() {
    Map<String, String> env = TestServers.env(Server.REDIS);
    Namespace namespace = Namespace.fresh();
    try (OrderStore store = StoreType.REDIS.open(Clock.systemUTC(), namespace, env, 4)) {
      claimOne(store);
    }
    try (Jedis jedis = new Jedis(java.net.URI.create(env.get(Server.REDIS.variable())))) {
      // the order's hash, the claims index holding its claim, the key layout's version
      assertEquals(3, jedis.keys(namespace.keyPrefix() + "*").size());
      namespace.drop(Server.REDIS, env);
      assertEquals(0, jedis.keys(namespace.keyPrefix() + "*").size());
    }
  }

  @Test
  @DisplayName(
      "a Redis Cluster store writes under the namespace's prefix, and drop clears every master")
  void redisCluster() {
    Map<String, String> env = TestServers.env(Server.REDIS_CLUSTER);
    Namespace namespace = Namespace.fresh();
    try (OrderStore store = StoreType.REDIS_CLUSTER.open(Clock.systemUTC(), namespace, env, 4)) {
      for (int i = 0; i < 20; i++) {
        store.claim(Orders.snapshot("ns_test_" + i), Duration.ofMinutes(1));
      }
    }
    assertTrue(leftoverKeys(namespace.run(), env) >= 20);
    namespace.drop(Server.REDIS_CLUSTER, env);
    Namespace.sweep(namespace.run(), env); // the node's view too, should the test share one
    assertEquals(0, leftoverKeys(namespace.run(), env));
  }

  @Test
  @DisplayName("a SQLite store's file lives in the namespace's folder, and drop deletes the folder")
  void sqlite() {
    Namespace namespace = Namespace.fresh();
    try (OrderStore store = StoreType.SQLITE.open(Clock.systemUTC(), namespace, Map.of(), 4)) {
      claimOne(store);
    }
    assertTrue(Files.isDirectory(namespace.folder()));
    namespace.drop(null, Map.of());
    assertFalse(Files.exists(namespace.folder()));
  }

  @Test
  @DisplayName("the main job leaves no schema, key or file behind on the servers it used")
  void mainJobCleansUp() throws Exception {
    Map<String, String> env = TestServers.env(Server.POSTGRES, Server.REDIS, Server.REDIS_CLUSTER);
    String url = env.get(Server.POSTGRES.variable());
    String run = Namespace.runId();
    smoke(env, "postgres,redis,redis-cluster,sqlite");
    assertEquals(
        List.of(), Namespace.SqlNamespace.SCHEMA.leftover(url, run), "schemas left behind");
    assertEquals(0, leftoverKeys(run, env), "keys left behind");
    try (var folders = Files.list(Files.createTempDirectory("x").getParent())) {
      assertEquals(
          0,
          folders
              .filter(p -> p.getFileName().toString().startsWith("fencekit-bench-" + run))
              .count(),
          "SQLite folders left behind");
    }
  }

  @Test
  @DisplayName(
      "the main job's smoke run of mysql measures it beside its raw baseline and ShedLock's JDBC"
          + " provider, and leaves no database behind")
  void mainJobOnMysql() throws Exception {
    Map<String, String> env = TestServers.env(Server.MYSQL);
    String run = Namespace.runId();
    String out = smoke(env, "mysql");
    for (String row : List.of("mysql-single-jdbc", "shedlock-jdbc-mysql")) {
      assertTrue(out.matches("(?s).*\\|\\s*mysql\\s*\\|[^\\n]*" + row + ".*"), row + " in\n" + out);
    }
    assertEquals(
        List.of(),
        Namespace.SqlNamespace.DATABASE.leftover(env.get(Server.MYSQL.variable()), run),
        "databases left behind");
  }

  /** The main job's smoke run of {@code stores}, which must exit 0; its output. */
  private static String smoke(Map<String, String> env, String stores) throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    int status =
        Main.run(
            new String[] {
              "--smoke",
              "--only",
              stores,
              "--out",
              Files.createTempDirectory("fencekit-clean").toString()
            },
            new PrintStream(bytes, true, StandardCharsets.UTF_8),
            env);
    String out = bytes.toString(StandardCharsets.UTF_8);
    assertEquals(0, status, out);
    return out;
  }

  /** How many keys of {@code run} exist on every Redis configured in {@code env}. */
  private static long leftoverKeys(String run, Map<String, String> env) {
    long keys = 0;
    for (Server redis : List.of(Server.REDIS, Server.REDIS_CLUSTER)) {
      for (Jedis node : Namespace.redisNodes(redis, env)) {
        try (node) {
          keys += Namespace.scan(node, "fencekit-bench-" + run + "-*").size();
        }
      }
    }
    return keys;
  }
}
