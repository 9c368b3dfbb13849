package org.fencekit.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;

/**
 * Where one benchmark trial keeps its orders, so that nothing it writes mixes with anyone else's
 * data on a shared server or outlives it: a PostgreSQL schema of its own ({@code
 * fencekit_bench_<run>_<id>}), a MySQL database of the same name, a Redis key prefix of its own
 * ({@code fencekit-bench-<run>-<id>:}) and a temporary folder for SQLite files. {@link #drop}
 * removes each; {@link #sweep} removes whatever every namespace of one run left behind (a benchmark
 * fork that died before its teardown).
 *
 * <p>The run id is {@value #RUN_PROPERTY} when set (the main job passes its own to every JMH fork),
 * else one drawn per JVM.
 */
record Namespace(String run, String id) {

  /** The system property that carries the main job's run id into the JMH forks. */
  static final String RUN_PROPERTY = "fencekit.bench.run";

  private static final Pattern HEX = Pattern.compile("[0-9a-f]{8}");
  private static final String THIS_JVM = newId();

  /** Checks both ids: eight lower-case hex digits, so names and patterns stay plain. */
  Namespace {
    if (!HEX.matcher(run).matches() || !HEX.matcher(id).matches()) {
      throw new IllegalArgumentException(
          "a namespace's run and id are 8 lower-case hex digits, got " + run + " and " + id);
    }
  }

  /** A namespace no one else uses, in this JVM's run. */
  static Namespace fresh() {
    return new Namespace(runId(), newId());
  }

  /** The run id of this JVM: {@value #RUN_PROPERTY}, or one drawn at start-up. */
  static String runId() {
    String run = System.getProperty(RUN_PROPERTY);
    return run == null ? THIS_JVM : run;
  }

  /** Eight random hex digits. */
  static String newId() {
    return UUID.randomUUID().toString().substring(0, 8);
  }

  /** The PostgreSQL schema of this namespace. */
  String schema() {
    return "fencekit_bench_" + run + "_" + id;
  }

  /**
   * The MySQL database of this namespace, named as its PostgreSQL schema: MySQL has no schemas
   * inside a database, and its tables live in the database the store's URL names.
   */
  String database() {
    return schema();
  }

  /**
   * Creates this namespace's MySQL database on the server {@code jdbcUrl} reaches (when it is not
   * there yet) and returns the URL of it: {@code jdbcUrl} with its database replaced, its
   * parameters kept, as {@code jdbc:mysql:}.
   */
  String mysqlDatabase(String jdbcUrl) {
    String url = mysqlDriverUrl(jdbcUrl);
    try (Connection connection = DriverManager.getConnection(url);
        Statement statement = connection.createStatement()) {
      // The name is ours: fencekit_bench_ and hex digits, checked by the constructor.
      statement.execute("CREATE DATABASE IF NOT EXISTS " + database() + " CHARACTER SET utf8mb4");
    } catch (SQLException e) {
      throw new IllegalStateException(
          "could not create the benchmark database %s in MySQL (error %s): %s; the user of %s needs"
                  .formatted(database(), e.getErrorCode(), e.getMessage(), Server.MYSQL.variable())
              + " the CREATE and DROP privileges on databases named fencekit_bench_%",
          e);
    }
    return withDatabase(url, database());
  }

  /** {@code jdbcUrl} naming {@code database} in place of its own, its parameters kept. */
  static String withDatabase(String jdbcUrl, String database) {
    int hosts = jdbcUrl.indexOf("//");
    int path = jdbcUrl.indexOf('/', hosts + 2);
    int query = jdbcUrl.indexOf('?');
    int end = query < 0 ? jdbcUrl.length() : query;
    String base = path < 0 || path > end ? jdbcUrl.substring(0, end) : jdbcUrl.substring(0, path);
    return base + "/" + database + jdbcUrl.substring(end);
  }

  /**
   * {@code jdbcUrl} as MySQL Connector/J takes it: {@code jdbc:mariadb:} read as {@code
   * jdbc:mysql:}.
   */
  static String mysqlDriverUrl(String jdbcUrl) {
    return jdbcUrl.startsWith("jdbc:mariadb:")
        ? "jdbc:mysql:" + jdbcUrl.substring("jdbc:mariadb:".length())
        : jdbcUrl;
  }

  /** The Redis key prefix of this namespace. */
  String keyPrefix() {
    return "fencekit-bench-" + run + "-" + id + ":";
  }

  /** The folder of this namespace's SQLite files (created on first use). */
  Path folder() {
    return Path.of(System.getProperty("java.io.tmpdir"), "fencekit-bench-" + run + "-" + id);
  }

  /** A new SQLite database file in {@link #folder()}. */
  Path sqliteFile(String name) {
    try {
      return Files.createDirectories(folder()).resolve(name + ".db");
    } catch (IOException e) {
      throw new UncheckedIOException("could not create the benchmark folder " + folder(), e);
    }
  }

  /**
   * Removes this namespace's files and, on {@code server} (null for an embedded store), its schema
   * or its keys.
   */
  void drop(Server server, Map<String, String> env) {
    deleteFolder(folder());
    if (server == Server.POSTGRES) {
      SqlNamespace.SCHEMA.drop(server.lookup(env).orElseThrow(), List.of(schema()));
    } else if (server == Server.MYSQL) {
      SqlNamespace.DATABASE.drop(server.lookup(env).orElseThrow(), List.of(database()));
    } else if (server == Server.ETCD) {
      RawEtcd.deletePrefix(server.lookup(env).orElseThrow(), keyPrefix());
    } else if (server != null) {
      unlinkKeys(server, env, keyPrefix() + "*");
    }
  }

  /**
   * Closes {@code opened}, what a benchmark's setup opened in {@code namespace}, then drops the
   * namespace on {@code server} (null for an embedded store) even if the close failed. Either may
   * be null: the setup failed before it.
   */
  static void closeThenDrop(AutoCloseable opened, Namespace namespace, Server server) {
    try {
      if (opened != null) {
        opened.close();
      }
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) { // the stores, drivers and libraries throw none
      throw new IllegalStateException("could not close " + opened + ": " + e.getMessage(), e);
    } finally {
      if (namespace != null) {
        namespace.drop(server, Server.environment());
      }
    }
  }

  /**
   * Removes what every namespace of {@code run} left, on every server configured in {@code env}.
   */
  static void sweep(String run, Map<String, String> env) {
    new Namespace(run, "00000000"); // checks the run id
    try (Stream<Path> folders = Files.list(Path.of(System.getProperty("java.io.tmpdir")))) {
      folders
          .filter(p -> p.getFileName().toString().startsWith("fencekit-bench-" + run + "-"))
          .forEach(Namespace::deleteFolder);
    } catch (IOException e) {
      throw new UncheckedIOException("could not list the temporary folder", e);
    }
    for (SqlNamespace kind : SqlNamespace.values()) {
      kind.server.lookup(env).ifPresent(url -> kind.drop(url, kind.leftover(url, run)));
    }
    for (Server redis : List.of(Server.REDIS, Server.REDIS_CLUSTER)) {
      unlinkKeys(redis, env, "fencekit-bench-" + run + "-*");
    }
    Server.ETCD
        .lookup(env)
        .ifPresent(endpoints -> RawEtcd.deletePrefix(endpoints, "fencekit-bench-" + run + "-"));
  }

  /** What a trial's namespace is on a SQL server, how to list a run's and how to drop one. */
  enum SqlNamespace {
    SCHEMA(
        Server.POSTGRES,
        "schema",
        "PostgreSQL",
        "SELECT nspname FROM pg_namespace WHERE nspname LIKE ? ORDER BY nspname",
        "DROP SCHEMA IF EXISTS %s CASCADE"),
    DATABASE(
        Server.MYSQL,
        "database",
        "MySQL",
        "SELECT schema_name FROM information_schema.schemata WHERE schema_name LIKE ?"
            + " ORDER BY schema_name",
        "DROP DATABASE IF EXISTS %s");

    private final Server server;
    private final String noun;
    private final String engine;
    private final String list;
    private final String drop;

    SqlNamespace(Server server, String noun, String engine, String list, String drop) {
      this.server = server;
      this.noun = noun;
      this.engine = engine;
      this.list = list;
      this.drop = drop;
    }

    /** The names of {@code run}'s namespaces that exist on the server at {@code jdbcUrl}. */
    List<String> leftover(String jdbcUrl, String run) {
      List<String> names = new ArrayList<>();
      try (Connection connection = DriverManager.getConnection(mysqlDriverUrl(jdbcUrl));
          PreparedStatement select = connection.prepareStatement(list)) {
        select.setString(1, "fencekit\\_bench\\_" + run + "\\_%");
        try (ResultSet rs = select.executeQuery()) {
          while (rs.next()) {
            names.add(rs.getString(1));
          }
        }
      } catch (SQLException e) {
        throw new IllegalStateException(
            "could not list the benchmark " + noun + "s in " + engine + ": " + e.getMessage(), e);
      }
      return names;
    }

    void drop(String jdbcUrl, List<String> names) {
      if (names.isEmpty()) {
        return;
      }
      try (Connection connection = DriverManager.getConnection(mysqlDriverUrl(jdbcUrl));
          Statement statement = connection.createStatement()) {
        for (String name : names) {
          // The name is ours: fencekit_bench_ and hex digits, checked by the constructor.
          statement.execute(String.format(drop, name));
        }
      } catch (SQLException e) {
        throw new IllegalStateException(
            "could not drop the benchmark %s(s) %s in %s: %s; drop them by hand"
                .formatted(noun, String.join(", ", names), engine, e.getMessage()),
            e);
      }
    }
  }

  /** A connection to the single node, or to each master of the cluster; none if not configured. */
  static List<Jedis> redisNodes(Server redis, Map<String, String> env) {
    List<Jedis> nodes = new ArrayList<>();
    Optional<String> setting = redis.lookup(env);
    if (setting.isPresent() && redis == Server.REDIS) {
      nodes.add(new Jedis(URI.create(setting.get())));
    } else if (setting.isPresent()) {
      masters(setting.get()).forEach(master -> nodes.add(new Jedis(master)));
    }
    return nodes;
  }

  /** Unlinks the keys matching {@code pattern} on the node or every master of {@code redis}. */
  private static void unlinkKeys(Server redis, Map<String, String> env, String pattern) {
    for (Jedis node : redisNodes(redis, env)) {
      try (node) {
        for (String key : scan(node, pattern)) {
          node.unlink(key); // one key at a time: on a cluster node, keys of one page span slots
        }
      }
    }
  }

  static List<String> scan(Jedis node, String pattern) {
    List<String> keys = new ArrayList<>();
    ScanParams match = new ScanParams().match(pattern).count(1000);
    String cursor = ScanParams.SCAN_POINTER_START;
    do {
      ScanResult<String> page = node.scan(cursor, match);
      keys.addAll(page.getResult());
      cursor = page.getCursor();
    } while (!cursor.equals(ScanParams.SCAN_POINTER_START));
    return keys;
  }

  /** The cluster's masters, learned from the first seed node that answers CLUSTER NODES. */
  private static Set<HostAndPort> masters(String seeds) {
    RuntimeException last = null;
    for (String seed : seeds.split(",")) {
      try (Jedis jedis = new Jedis(HostAndPort.from(seed.trim()))) {
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
        "no Redis Cluster seed node in "
            + Server.REDIS_CLUSTER.variable()
            + " answered CLUSTER NODES",
        last);
  }

  // The folder holds SQLite files only. A file may vanish while the folder is listed (SQLite
  // removes its -shm and -wal when the last connection closes), so a file already gone is no error.
  private static void deleteFolder(Path folder) {
    try (Stream<Path> files = Files.list(folder)) {
      for (Path file : (Iterable<Path>) files::iterator) {
        Files.deleteIfExists(file);
      }
      Files.deleteIfExists(folder);
    } catch (NoSuchFileException gone) {
      // no folder: nothing was written in it, or it went away meanwhile
    } catch (IOException e) {
      throw new UncheckedIOException("could not delete the benchmark folder " + folder, e);
    }
  }
}
