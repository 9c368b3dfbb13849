package org.fencekit.testsupport;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.stream.Collectors;

/**
 * A PostgreSQL server of a fault test's own, on a free loopback port with its data in {@code /tmp}:
 * initdb and pg_ctl from {@code /usr/lib/postgresql/<version>/bin}, run as the {@code postgres}
 * user (through {@code runuser} when the test runs as root), trust authentication, fsync off. The
 * test may kill its connections, restart it, pause it or lock its tables; never the shared server.
 *
 * <pre>{@code
 * try (OwnPostgres server = OwnPostgres.start()) {
 *   OrderStore store = PostgresOrderStore.builder().jdbcUrl(server.jdbcUrl()).createSchema(true).build();
 *   server.terminateBackends();
 * }
 * }</pre>
 */
public final class OwnPostgres extends OwnServer {

  private final Path bin;
  private final List<String> settings;

  private OwnPostgres(Path bin, List<String> settings) {
    super(
        bin.resolve("initdb"),
        "a PostgreSQL server of the test's own",
        "fencekit-own-pg-",
        LoopbackPorts.closed());
    this.bin = bin;
    this.settings = settings;
  }

  /**
   * Initialises and starts a server; skips the test if PostgreSQL is not installed (fails with
   * {@code FENCEKIT_REQUIRE_BACKENDS=true}).
   *
   * @param settings more server settings, each {@code name=value} ({@code "autovacuum=off"}),
   *     passed as {@code -c}
   */
  public static OwnPostgres start(String... settings) {
    return started(new OwnPostgres(binaries(), List.of(settings)), OwnPostgres::initialise);
  }

  private void initialise() {
    asPostgres(List.of("chown", "-R", "postgres", dir.toString()), true);
    asPostgres(
        List.of(
            bin.resolve("initdb").toString(),
            "-D",
            dir.resolve("data").toString(),
            "-A",
            "trust",
            "-U",
            "postgres",
            "--no-sync"),
        false);
    startServer();
  }

  private static Path binaries() {
    Path root = Path.of("/usr/lib/postgresql");
    List<Path> versions = new ArrayList<>();
    try (var list = Files.list(root)) {
      list.forEach(versions::add);
    } catch (IOException e) {
      return root.resolve("missing/bin");
    }
    versions.sort(
        (a, b) -> {
          try {
            return Integer.compare(
                Integer.parseInt(a.getFileName().toString()),
                Integer.parseInt(b.getFileName().toString()));
          } catch (NumberFormatException e) {
            return a.compareTo(b);
          }
        });
    return versions.isEmpty()
        ? root.resolve("missing/bin")
        : versions.get(versions.size() - 1).resolve("bin");
  }

  /** The server's JDBC URL, database {@code postgres}, user {@code postgres}. */
  public String jdbcUrl() {
    return "jdbc:postgresql://127.0.0.1:" + port + "/postgres?user=postgres";
  }

  /**
   * Terminates every client backend but the caller's ({@code pg_terminate_backend}), and returns
   * how many there were.
   */
  public int terminateBackends() {
    return admin(
        "select count(pg_terminate_backend(pid)) from pg_stat_activity"
            + " where backend_type = 'client backend' and pid <> pg_backend_pid()");
  }

  /** Stops the server at once ({@code pg_ctl stop -m immediate}: a crash) and starts it again. */
  public void restartImmediately() {
    stop();
    startServer();
  }

  /** The postmaster's process id. */
  @Override
  public long pid() {
    try {
      return Long.parseLong(Files.readAllLines(dir.resolve("data/postmaster.pid")).get(0).trim());
    } catch (IOException | RuntimeException e) {
      throw new IllegalStateException("cannot read the postmaster's pid in " + dir, e);
    }
  }

  /**
   * Pauses the whole server, postmaster and backends (SIGSTOP), for {@code millis}, then resumes.
   */
  public void pauseFor(long millis) {
    pause();
    try {
      pause(millis);
    } finally {
      resume();
    }
  }

  /** Pauses the whole server (SIGSTOP to the postmaster and every backend); returns once sent. */
  public void pause() {
    signalTree(pid(), "STOP");
  }

  /** Resumes a server {@link #pause()} stopped (SIGCONT). */
  public void resume() {
    signalTree(pid(), "CONT");
  }

  /**
   * Holds {@code LOCK TABLE table IN ACCESS EXCLUSIVE MODE} in a transaction for {@code millis}, so
   * every statement on it waits; then rolls back.
   */
  public void lockTableFor(String table, long millis) {
    try (Connection connection = connect()) {
      connection.setAutoCommit(false);
      try (Statement statement = connection.createStatement()) {
        statement.execute("lock table " + table + " in access exclusive mode");
        pause(millis);
      }
      connection.rollback();
    } catch (SQLException e) {
      throw new IllegalStateException("cannot lock " + table + " on " + jdbcUrl(), e);
    }
  }

  /** Runs one query that answers one integer, on a connection of its own. */
  public int admin(String query) {
    try (Connection connection = connect();
        Statement statement = connection.createStatement();
        ResultSet rows = statement.executeQuery(query)) {
      rows.next();
      return rows.getInt(1);
    } catch (SQLException e) {
      throw new IllegalStateException("cannot run '" + query + "' on " + jdbcUrl(), e);
    }
  }

  private Connection connect() throws SQLException {
    Properties properties = new Properties();
    properties.setProperty("user", "postgres");
    properties.setProperty("connectTimeout", "5");
    return DriverManager.getConnection(
        "jdbc:postgresql://127.0.0.1:" + port + "/postgres", properties);
  }

  private void startServer() {
    pgCtl(
        "start",
        "-w",
        "-t",
        "60",
        "-l",
        dir.resolve("server.log").toString(),
        "-o",
        "-p "
            + port
            + " -c listen_addresses=127.0.0.1 -c unix_socket_directories="
            + dir
            + " -c fsync=off -c max_connections=60"
            + settings.stream().map(setting -> " -c " + setting).collect(Collectors.joining()));
  }

  private void pgCtl(String... args) {
    List<String> command = new ArrayList<>();
    command.add(bin.resolve("pg_ctl").toString());
    command.add("-D");
    command.add(dir.resolve("data").toString());
    command.addAll(List.of(args));
    asPostgres(command, false);
  }

  private void asPostgres(List<String> command, boolean asRoot) {
    boolean root = "root".equals(System.getProperty("user.name"));
    List<String> full = new ArrayList<>();
    if (root && !asRoot) {
      full.addAll(List.of("runuser", "-u", "postgres", "--"));
    }
    if (!root && asRoot) {
      return; // not root: the directory is ours already
    }
    full.addAll(command);
    run(90, full);
  }

  @Override
  boolean running() {
    return Files.exists(dir.resolve("data/postmaster.pid"));
  }

  /** {@code pg_ctl stop -m immediate}. */
  @Override
  void stop() {
    pgCtl("stop", "-m", "immediate");
  }
}
