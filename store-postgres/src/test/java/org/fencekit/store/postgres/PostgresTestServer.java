package org.fencekit.store.postgres;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import org.fencekit.store.ClaimId;
import org.junit.jupiter.api.Assumptions;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.PostgreSQLContainer;
import org.testcontainers.utility.DockerImageName;

/**
 * Where the PostgreSQL tests find a server, resolved once per JVM:
 *
 * <ol>
 *   <li>{@value #URL_VARIABLE}, a JDBC URL such as {@code
 *       jdbc:postgresql://127.0.0.1:5432/test?user=postgres}; a server that does not answer there
 *       fails the tests (you asked for it);
 *   <li>else a Testcontainers PostgreSQL ({@value #IMAGE}) when Docker is available;
 *   <li>else every test that needs it is skipped with a message saying how to enable it, or fails
 *       if {@value #REQUIRE_VARIABLE} is {@code true}.
 * </ol>
 *
 * Each test class works in its own schema with a random name ({@link #newSchema()}) and drops it
 * afterwards, so runs on one server never see each other's tables.
 */
final class PostgresTestServer {

  /** The image Testcontainers runs; pinned here only. */
  static final String IMAGE = "postgres:15-alpine";

  /** The environment variable naming a server. */
  static final String URL_VARIABLE = "FENCEKIT_POSTGRES_URL";

  /** The environment variable that turns a missing server into a failure. */
  static final String REQUIRE_VARIABLE = "FENCEKIT_REQUIRE_BACKENDS";

  private static final String HOW_TO_ENABLE =
      "set "
          + URL_VARIABLE
          + "=jdbc:postgresql://127.0.0.1:5432/test?user=postgres (any PostgreSQL 12+ you may create"
          + " schemas in), or start Docker so Testcontainers can run "
          + IMAGE;

  private static String resolved;
  private static String unavailable;
  private static PostgreSQLContainer<?> container;

  private PostgresTestServer() {}

  /**
   * Whether there is a server; call it from {@code @BeforeAll} to set up only when there is.
   *
   * @throws IllegalStateException if there is none and {@value #REQUIRE_VARIABLE} is true, or if
   *     {@value #URL_VARIABLE} names a server that does not answer
   */
  static synchronized boolean available() {
    if (resolved == null && unavailable == null) {
      resolve();
    }
    if (resolved == null && Boolean.parseBoolean(System.getenv(REQUIRE_VARIABLE))) {
      throw new IllegalStateException(
          "PostgreSQL tests need a server and "
              + REQUIRE_VARIABLE
              + "=true forbids skipping them: "
              + unavailable
              + ". To run them, "
              + HOW_TO_ENABLE
              + ".");
    }
    return resolved != null;
  }

  /**
   * The server's JDBC URL (with credentials); skips the calling test with a message saying how to
   * enable it if there is no server (call it first in {@code @BeforeEach}: Surefire counts a test
   * skipped there, but says nothing of a class skipped in {@code @BeforeAll}).
   */
  static String jdbcUrl() {
    if (available()) {
      return resolved;
    }
    return Assumptions.abort(
        "PostgreSQL tests skipped: "
            + unavailable
            + ". To run them, "
            + HOW_TO_ENABLE
            + "; set "
            + REQUIRE_VARIABLE
            + "=true to fail instead of skipping.");
  }

  private static void resolve() {
    String url = System.getenv(URL_VARIABLE);
    if (url != null && !url.isBlank()) {
      try (Connection connection = DriverManager.getConnection(url)) {
        connection.isValid(5);
      } catch (SQLException e) {
        throw new IllegalStateException(
            URL_VARIABLE
                + " points at "
                + Secrets.redactUrl(url)
                + " but no PostgreSQL answers there (SQLState "
                + e.getSQLState()
                + ": "
                + Secrets.of(url, null).clean(String.valueOf(e.getMessage()))
                + "): start the server or fix the variable",
            e);
      }
      resolved = url;
      return;
    }
    boolean docker;
    try {
      docker = DockerClientFactory.instance().isDockerAvailable();
    } catch (RuntimeException e) {
      docker = false;
    }
    if (!docker) {
      unavailable = URL_VARIABLE + " is not set and Docker is not available for Testcontainers";
      return;
    }
    container = new PostgreSQLContainer<>(DockerImageName.parse(IMAGE));
    container.start();
    String base = container.getJdbcUrl();
    resolved =
        base
            + (base.contains("?") ? "&" : "?")
            + "user="
            + container.getUsername()
            + "&password="
            + container.getPassword();
  }

  /** A new, empty schema with a random name; closing it drops it with everything in it. */
  static Schema newSchema() {
    String name = "fencekit_test_" + ClaimId.newNonce().substring(0, 12).toLowerCase(Locale.ROOT);
    execute("CREATE SCHEMA " + name);
    return new Schema(name);
  }

  /** Runs one statement on a connection of its own (test set-up, not the store's code path). */
  static void execute(String sql) {
    try (Connection connection = DriverManager.getConnection(jdbcUrl());
        Statement statement = connection.createStatement()) {
      statement.execute(sql);
    } catch (SQLException e) {
      throw new IllegalStateException("test set-up statement failed: " + sql, e);
    }
  }

  /** A connection of the test's own, outside any store. */
  static Connection connect() throws SQLException {
    return DriverManager.getConnection(jdbcUrl());
  }

  /**
   * A schema a test class owns.
   *
   * @param name its name, a plain identifier
   */
  record Schema(String name) implements AutoCloseable {
    /** Drops the schema and everything in it. */
    @Override
    public void close() {
      execute("DROP SCHEMA IF EXISTS " + name + " CASCADE");
    }
  }
}
