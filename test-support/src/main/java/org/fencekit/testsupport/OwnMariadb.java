package org.fencekit.testsupport;

import java.io.IOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * A MariaDB server of a fault test's own, on a free loopback port with its data in {@code /tmp}:
 * {@code mariadb-install-db} and {@code mariadbd} run as the current user ({@code --user=root} when
 * the test runs as root), root without a password, database {@code test}, the binary log off. The
 * test may kill its connections, crash and restart it, pause it or lock its tables; never the
 * shared server.
 *
 * <pre>{@code
 * try (OwnMariadb server = OwnMariadb.start()) {
 *   OrderStore store = MysqlOrderStore.builder().jdbcUrl(server.jdbcUrl()).createSchema(true).build();
 *   server.killConnections();
 * }
 * }</pre>
 */
public final class OwnMariadb extends OwnServer {

  private static final Path SERVER = Path.of("/usr/sbin/mariadbd");
  private static final Path INSTALL = Path.of("/usr/bin/mariadb-install-db");

  private Process process;

  private OwnMariadb() {
    super(
        SERVER,
        "a MariaDB server of the test's own",
        "fencekit-own-mariadb-",
        LoopbackPorts.closed());
  }

  /**
   * Initialises and starts a server; skips the test if MariaDB is not installed (fails with {@code
   * FENCEKIT_REQUIRE_BACKENDS=true}).
   */
  public static OwnMariadb start() {
    requireBinary(INSTALL, "a MariaDB server of the test's own");
    return started(new OwnMariadb(), OwnMariadb::initialise);
  }

  private void initialise() {
    run(
        120,
        List.of(
            INSTALL.toString(),
            "--no-defaults",
            "--datadir=" + dir.resolve("data"),
            "--auth-root-authentication-method=normal",
            "--user=" + System.getProperty("user.name"),
            "--skip-test-db"));
    startServer();
    admin("CREATE DATABASE IF NOT EXISTS test CHARACTER SET utf8mb4");
  }

  /** The server's JDBC URL, database {@code test}, user {@code root}. */
  public String jdbcUrl() {
    return "jdbc:mysql://127.0.0.1:" + port + "/test?user=root";
  }

  /**
   * Kills every connection but the caller's ({@code KILL <id>}) and returns how many there were.
   */
  public int killConnections() {
    try (Connection connection = connect();
        Statement statement = connection.createStatement()) {
      List<Long> ids = new ArrayList<>();
      try (ResultSet rows =
          statement.executeQuery(
              "SELECT id FROM information_schema.processlist"
                  + " WHERE id <> CONNECTION_ID() AND command <> 'Daemon' AND user = 'root'")) {
        while (rows.next()) {
          ids.add(rows.getLong(1));
        }
      }
      int killed = 0;
      for (long id : ids) {
        try {
          statement.execute("KILL " + id);
          killed++;
        } catch (SQLException gone) {
          // ended meanwhile
        }
      }
      return killed;
    } catch (SQLException e) {
      throw new IllegalStateException("cannot kill the connections of " + jdbcUrl(), e);
    }
  }

  /** Crashes the server (SIGKILL) and starts it again on the same data and port. */
  public void restartImmediately() {
    stop();
    startServer();
  }

  /** The server's process id. */
  @Override
  public long pid() {
    if (process == null) {
      throw new IllegalStateException("the server in " + dir + " is not running");
    }
    return process.pid();
  }

  /** Pauses the server (SIGSTOP) for {@code millis}, then resumes it. */
  public void pauseFor(long millis) {
    signal(pid(), "STOP");
    try {
      pause(millis);
    } finally {
      signal(pid(), "CONT");
    }
  }

  /**
   * Holds {@code LOCK TABLES table WRITE} on a connection of its own for {@code millis}, so every
   * other statement on the table waits; then {@code UNLOCK TABLES}.
   */
  public void lockTableFor(String table, long millis) {
    try (Connection connection = connect();
        Statement statement = connection.createStatement()) {
      statement.execute("USE test");
      statement.execute("LOCK TABLES " + table + " WRITE");
      try {
        pause(millis);
      } finally {
        statement.execute("UNLOCK TABLES");
      }
    } catch (SQLException e) {
      throw new IllegalStateException("cannot lock " + table + " on " + jdbcUrl(), e);
    }
  }

  /** Runs one statement on a connection of its own. */
  public void admin(String sql) {
    try (Connection connection = connect();
        Statement statement = connection.createStatement()) {
      statement.execute(sql);
    } catch (SQLException e) {
      throw new IllegalStateException("cannot run '" + sql + "' on " + jdbcUrl(), e);
    }
  }

  private Connection connect() throws SQLException {
    return DriverManager.getConnection(
        "jdbc:mysql://127.0.0.1:" + port + "/?user=root&connectTimeout=5000");
  }

  private void startServer() {
    List<String> command =
        List.of(
            SERVER.toString(),
            "--no-defaults",
            "--datadir=" + dir.resolve("data"),
            "--port=" + port,
            "--bind-address=127.0.0.1",
            "--socket=" + dir.resolve("sock"),
            "--pid-file=" + dir.resolve("pid"),
            "--user=" + System.getProperty("user.name"),
            "--skip-log-bin",
            "--innodb-buffer-pool-size=32M",
            "--innodb-flush-log-at-trx-commit=2",
            "--max-connections=100",
            "--log-error=" + dir.resolve("error.log"));
    try {
      process =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(dir.resolve("server.out").toFile())
              .start();
    } catch (IOException e) {
      throw new IllegalStateException("cannot start " + String.join(" ", command), e);
    }
    boolean up =
        poll(
            60_000,
            200,
            () -> {
              if (!process.isAlive()) {
                return true;
              }
              try (Connection connection = connect()) {
                return connection.isValid(2);
              } catch (SQLException e) {
                return false;
              }
            });
    if (!up || !process.isAlive()) {
      throw new IllegalStateException(
          "the MariaDB server in " + dir + " did not start; see " + dir.resolve("error.log"));
    }
  }

  @Override
  boolean running() {
    return process != null && process.isAlive();
  }

  /** SIGKILL: a crash; InnoDB recovers at the next start. */
  @Override
  void stop() {
    Process stopping = process;
    signal(stopping.pid(), "KILL");
    poll(30_000, 50, () -> !stopping.isAlive());
  }
}
