package org.fencekit.testsupport;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.function.Supplier;

/**
 * A namespace a test class owns on a shared SQL server (a PostgreSQL schema, a MySQL database), as
 * an extension registered on a static field: created before the class's tests when there is a
 * server, dropped after them; each test is skipped (or fails) as the server's {@code jdbcUrl()}
 * says when there is none. {@link TestPostgres.ClassSchema} and {@link TestMysql.ClassDatabase} are
 * its two kinds.
 *
 * @param <N> what is owned
 */
public abstract class ClassNamespace<N extends ClassNamespace.Owned> extends PerClass {

  /** A namespace a test owns: its name, a JDBC URL into it; closing it drops it. */
  public interface Owned extends AutoCloseable {
    /** Its name, a plain identifier. */
    String name();

    /** A JDBC URL into it, credentials included. */
    String jdbcUrl();

    /** Drops it and everything in it. */
    @Override
    void close();
  }

  private final Supplier<N> create;
  private final String registration;
  private N owned;

  /**
   * @param create makes a new namespace (skips the test if there is no server)
   * @param registration how to register it, for the message of a use outside the class's lifecycle
   */
  ClassNamespace(Backend server, Supplier<N> create, String registration) {
    super(server);
    this.create = create;
    this.registration = registration;
  }

  /**
   * The namespace's name; skips the test if there is no server.
   *
   * @throws IllegalStateException if called outside the test class's lifecycle
   */
  public String name() {
    return current().name();
  }

  /** A JDBC URL into the namespace, credentials included; skips the test if there is no server. */
  public String jdbcUrl() {
    return current().jdbcUrl();
  }

  private synchronized N current() {
    server.address(); // skips or fails first when there is no server
    if (owned == null) {
      throw new IllegalStateException(
          "nothing owned yet: register "
              + registration
              + " with @RegisterExtension on a static field, and use it from a test, @BeforeEach"
              + " or @AfterEach");
    }
    return owned;
  }

  @Override
  synchronized boolean setUp() {
    if (!server.available()) {
      return false;
    }
    owned = create.get();
    return true;
  }

  @Override
  synchronized void cleanUp() {
    try {
      owned.close();
    } finally {
      owned = null;
    }
  }

  /**
   * {@code url} if it starts with {@code prefix} and a server answers there, for a {@link
   * Backend}'s check.
   *
   * @throws IllegalArgumentException if the prefix is wrong
   * @throws IllegalStateException with the driver's SQLState and message if no server answers
   */
  static String answering(String url, String prefix, String product) {
    if (!url.startsWith(prefix)) {
      throw new IllegalArgumentException("a " + product + " JDBC URL starts with " + prefix);
    }
    try (Connection connection = DriverManager.getConnection(url)) {
      connection.isValid(5);
    } catch (SQLException e) {
      throw new IllegalStateException("SQLState " + e.getSQLState() + ": " + e.getMessage());
    }
    return url;
  }
}
