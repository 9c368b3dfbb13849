package org.fencekit.testsupport;

import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.HexFormat;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.utility.DockerImageName;

/**
 * The MySQL or MariaDB server of fencekit's tests, found once per JVM: {@value #URL_VARIABLE}, else
 * a Testcontainers {@value #IMAGE} when Docker is available, else none, and then every test that
 * asks is skipped saying how to enable it (or fails with {@code FENCEKIT_REQUIRE_BACKENDS=true}). A
 * malformed {@value #URL_VARIABLE}, or one where no server answers, fails the tests naming the
 * variable and showing a good value.
 *
 * <p>Each test class works in a database of its own with a random name (MySQL's schema), so runs on
 * one server never see each other's tables:
 *
 * <pre>{@code
 * class MyTest {
 *   @RegisterExtension static final TestMysql.ClassDatabase database = TestMysql.databasePerClass();
 *
 *   @Test
 *   void works() {
 *     OrderStore store = MysqlOrderStore.builder()
 *         .jdbcUrl(database.jdbcUrl()).createSchema(true).build();
 *     ...
 *   }
 * }
 * }</pre>
 */
public final class TestMysql {

  /** The environment variable naming a server, as a JDBC URL with a database the user owns. */
  public static final String URL_VARIABLE = "FENCEKIT_MYSQL_URL";

  /** The image Testcontainers runs when {@value #URL_VARIABLE} is not set. */
  public static final String IMAGE = "mariadb:10.11";

  /** A good value of {@value #URL_VARIABLE}. */
  public static final String EXAMPLE_URL = "jdbc:mysql://127.0.0.1:3306/test?user=root";

  private static final SecureRandom RANDOM = new SecureRandom();

  /** The server of this JVM. */
  static final Backend SERVER =
      new Backend(
          "MySQL",
          URL_VARIABLE,
          EXAMPLE_URL,
          "any MySQL 8.0.16+ or MariaDB 10.6+ where the user may create databases",
          IMAGE,
          System::getenv,
          TestMysql::check,
          Docker.ifAvailable(TestMysql::container));

  private TestMysql() {}

  /**
   * Whether there is a server; never skips.
   *
   * @throws IllegalStateException if {@value #URL_VARIABLE} is malformed or no server answers
   *     there, or if there is no server and {@code FENCEKIT_REQUIRE_BACKENDS=true}
   */
  public static boolean available() {
    return SERVER.available();
  }

  /**
   * The server's JDBC URL, credentials included; skips the calling test if there is no server.
   *
   * @throws IllegalStateException as {@link #available()}
   */
  public static String jdbcUrl() {
    return SERVER.address();
  }

  /**
   * A connection of the test's own to {@code jdbcUrl}, outside any store.
   *
   * @throws SQLException if the server refuses it
   */
  public static Connection connect(String jdbcUrl) throws SQLException {
    return DriverManager.getConnection(jdbcUrl);
  }

  /**
   * Runs one statement on a connection of its own to {@code jdbcUrl} (test set-up, not a store's
   * code path).
   *
   * @throws IllegalStateException if the statement fails
   */
  public static void execute(String jdbcUrl, String sql) {
    try (Connection connection = connect(jdbcUrl);
        Statement statement = connection.createStatement()) {
      statement.execute(sql);
    } catch (SQLException e) {
      throw new IllegalStateException(
          "test set-up statement failed (error " + e.getErrorCode() + "): " + sql, e);
    }
  }

  /**
   * {@code jdbcUrl} with its database replaced by {@code database}, the rest (parameters included)
   * kept.
   */
  public static String withDatabase(String jdbcUrl, String database) {
    int hosts = jdbcUrl.indexOf("//");
    int path = jdbcUrl.indexOf('/', hosts + 2);
    int query = jdbcUrl.indexOf('?');
    int end = query < 0 ? jdbcUrl.length() : query;
    String base = path < 0 || path > end ? jdbcUrl.substring(0, end) : jdbcUrl.substring(0, path);
    return base + "/" + database + jdbcUrl.substring(end);
  }

  /**
   * Creates a new, empty database with a random name ({@code fencekit_test_} and 12 hex digits);
   * closing it drops it with everything in it. Skips the test if there is no server.
   */
  public static Database newDatabase() {
    byte[] bytes = new byte[6];
    RANDOM.nextBytes(bytes);
    String name = "fencekit_test_" + HexFormat.of().formatHex(bytes);
    execute(jdbcUrl(), "CREATE DATABASE " + name + " CHARACTER SET utf8mb4");
    return new Database(name, withDatabase(jdbcUrl(), name));
  }

  /**
   * An extension (register it with {@code @RegisterExtension} on a static field) that gives each
   * test class a database of its own: created before the class's tests when there is a server,
   * dropped after them; each test is skipped (or fails) as {@link #jdbcUrl()} says when there is
   * none.
   */
  public static ClassDatabase databasePerClass() {
    return new ClassDatabase();
  }

  /**
   * A database a test owns.
   *
   * @param name its name, a plain identifier
   * @param jdbcUrl a JDBC URL of it, credentials included
   */
  public record Database(String name, String jdbcUrl) implements ClassNamespace.Owned {
    /** Drops the database and everything in it. */
    @Override
    public void close() {
      execute(jdbcUrl, "DROP DATABASE IF EXISTS " + name);
    }
  }

  /** The per-class database of {@link #databasePerClass()}. */
  public static final class ClassDatabase extends ClassNamespace<Database> {
    private ClassDatabase() {
      super(SERVER, TestMysql::newDatabase, "TestMysql.databasePerClass()");
    }
  }

  private static String check(String url) {
    return ClassNamespace.answering(url, "jdbc:mysql:", "MySQL");
  }

  private static String container() {
    GenericContainer<?> container =
        new GenericContainer<>(DockerImageName.parse(IMAGE))
            .withEnv("MARIADB_ALLOW_EMPTY_ROOT_PASSWORD", "1")
            .withEnv("MARIADB_DATABASE", "test")
            .withExposedPorts(3306)
            .waitingFor(
                Wait.forLogMessage(".*ready for connections.*", 2)
                    .withStartupTimeout(Duration.ofMinutes(2)));
    container.start(); // stopped by Testcontainers' reaper when the JVM exits
    return "jdbc:mysql://"
        + container.getHost()
        + ":"
        + container.getMappedPort(3306)
        + "/test?user=root";
  }
}
