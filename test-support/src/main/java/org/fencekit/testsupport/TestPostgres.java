package org.fencekit.testsupport;

import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HexFormat;
import org.testcontainers.containers.PostgreSQLContainer;
import org.testcontainers.utility.DockerImageName;

/**
 * The PostgreSQL server of fencekit's tests, found once per JVM: {@value #URL_VARIABLE}, else a
 * Testcontainers {@value #IMAGE} when Docker is available, else none, and then every test that asks
 * is skipped saying how to enable it (or fails with {@code FENCEKIT_REQUIRE_BACKENDS=true}). A
 * malformed {@value #URL_VARIABLE}, or one where no server answers, fails the tests naming the
 * variable and showing a good value.
 *
 * <p>Each test class works in a schema of its own with a random name, so runs on one server never
 * see each other's tables:
 *
 * <pre>{@code
 * class MyTest {
 *   @RegisterExtension static final TestPostgres.ClassSchema schema = TestPostgres.schemaPerClass();
 *
 *   @Test
 *   void works() {
 *     OrderStore store = PostgresOrderStore.builder()
 *         .jdbcUrl(schema.jdbcUrl()).schema(schema.name()).createSchema(true).build();
 *     ...
 *   }
 * }
 * }</pre>
 *
 * Without the extension: {@link #newSchema()} in {@code @BeforeAll} when {@link #available()},
 * {@link #jdbcUrl()} first in {@code @BeforeEach} (a test skipped there is counted as skipped; a
 * class skipped in {@code @BeforeAll} shows no tests at all), {@link Schema#close()} in {@code
 * AfterAll}.
 */
public final class TestPostgres {

  /** The environment variable naming a server, as a JDBC URL. */
  public static final String URL_VARIABLE = "FENCEKIT_POSTGRES_URL";

  /** The image Testcontainers runs when {@value #URL_VARIABLE} is not set. */
  public static final String IMAGE = "postgres:15-alpine";

  /** A good value of {@value #URL_VARIABLE}. */
  public static final String EXAMPLE_URL = "jdbc:postgresql://127.0.0.1:5432/test?user=postgres";

  private static final SecureRandom RANDOM = new SecureRandom();

  /** The server of this JVM; {@code SERVER.in(...)} is another, for tests. */
  static final Backend SERVER =
      new Backend(
          "PostgreSQL",
          URL_VARIABLE,
          EXAMPLE_URL,
          "any PostgreSQL 12+ you may create schemas in",
          IMAGE,
          System::getenv,
          TestPostgres::check,
          Docker.ifAvailable(TestPostgres::container));

  private TestPostgres() {}

  /**
   * Whether there is a server; never skips. Call it in {@code @BeforeAll} to set up only when there
   * is one.
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
   * A connection of the test's own, outside any store; skips the test if there is no server.
   *
   * @throws SQLException if the server refuses it
   */
  public static Connection connect() throws SQLException {
    return DriverManager.getConnection(jdbcUrl());
  }

  /**
   * Runs one statement on a connection of its own (test set-up, not a store's code path); skips the
   * test if there is no server.
   *
   * @throws IllegalStateException if the statement fails
   */
  public static void execute(String sql) {
    try (Connection connection = connect();
        Statement statement = connection.createStatement()) {
      statement.execute(sql);
    } catch (SQLException e) {
      throw new IllegalStateException(
          "test set-up statement failed (SQLState " + e.getSQLState() + "): " + sql, e);
    }
  }

  /**
   * Creates a new, empty schema with a random name ({@code fencekit_test_} and 12 hex digits);
   * closing it drops it with everything in it. Skips the test if there is no server.
   */
  public static Schema newSchema() {
    byte[] bytes = new byte[6];
    RANDOM.nextBytes(bytes);
    String name = "fencekit_test_" + HexFormat.of().formatHex(bytes);
    execute("CREATE SCHEMA " + name);
    return new Schema(name, jdbcUrl());
  }

  /**
   * An extension (register it with {@code @RegisterExtension} on a static field) that gives each
   * test class a schema of its own: created before the class's tests when there is a server,
   * dropped after them; each test is skipped (or fails) as {@link #jdbcUrl()} says when there is
   * none. Classes nested in the one that registers it share its schema. Test classes sharing one
   * instance (a static field of a common base class) must run one at a time, JUnit's default.
   */
  public static ClassSchema schemaPerClass() {
    return new ClassSchema();
  }

  /**
   * A schema a test owns.
   *
   * @param name its name, a plain identifier
   * @param jdbcUrl the server's JDBC URL, credentials included (the schema is not part of it)
   */
  public record Schema(String name, String jdbcUrl) implements ClassNamespace.Owned {
    /** Drops the schema and everything in it ({@code DROP SCHEMA ... CASCADE}). */
    @Override
    public void close() {
      execute("DROP SCHEMA IF EXISTS " + name + " CASCADE");
    }
  }

  /** The per-class schema of {@link #schemaPerClass()}. */
  public static final class ClassSchema extends ClassNamespace<Schema> {
    private ClassSchema() {
      super(SERVER, TestPostgres::newSchema, "TestPostgres.schemaPerClass()");
    }
  }

  private static String check(String url) {
    return ClassNamespace.answering(url, "jdbc:postgresql:", "PostgreSQL");
  }

  private static String container() {
    PostgreSQLContainer<?> container = new PostgreSQLContainer<>(DockerImageName.parse(IMAGE));
    container.start(); // stopped by Testcontainers' reaper when the JVM exits
    String base = container.getJdbcUrl();
    return base
        + (base.contains("?") ? "&" : "?")
        + "user="
        + container.getUsername()
        + "&password="
        + container.getPassword();
  }
}
