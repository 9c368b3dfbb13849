package org.fencekit.store.postgres;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.fencekit.testsupport.TestPostgres;
import org.postgresql.PGConnection;

/**
 * A DataSource over a real one that lets a test act at a chosen moment of the store's transaction:
 * just before it prepares a statement, or just before it commits. The test then does something real
 * to the server (terminates the backend, commits a competing transaction); nothing about the
 * database is faked.
 */
final class Sabotage {

  /** What to do, given the connection's backend process id. */
  interface Hooks {
    /** Before the store prepares {@code sql} on the connection of backend {@code pid}. */
    default void beforePrepare(String sql, int pid) throws SQLException {}

    /** Before the store commits on the connection of backend {@code pid}. */
    default void beforeCommit(int pid) throws SQLException {}
  }

  private Sabotage() {}

  /** {@code real}, with {@code hooks} called on every connection it lends. */
  static DataSource wrap(DataSource real, Hooks hooks) {
    return (DataSource)
        Proxy.newProxyInstance(
            Sabotage.class.getClassLoader(),
            new Class<?>[] {DataSource.class},
            (proxy, method, args) -> {
              Object result = call(real, method, args);
              return result instanceof Connection ? connection((Connection) result, hooks) : result;
            });
  }

  /** Ends backend {@code pid} from a connection of the test's own, and waits until it is gone. */
  static void terminate(int pid) throws SQLException {
    try (Connection admin = TestPostgres.connect();
        PreparedStatement statement =
            admin.prepareStatement("SELECT pg_terminate_backend(?, 10000)")) {
      statement.setInt(1, pid);
      statement.execute();
    }
  }

  private static Connection connection(Connection real, Hooks hooks) throws SQLException {
    int pid = real.unwrap(PGConnection.class).getBackendPID();
    return (Connection)
        Proxy.newProxyInstance(
            Sabotage.class.getClassLoader(),
            new Class<?>[] {Connection.class},
            (proxy, method, args) -> {
              if (method.getName().equals("prepareStatement")) {
                hooks.beforePrepare((String) args[0], pid);
              } else if (method.getName().equals("commit")) {
                hooks.beforeCommit(pid);
              }
              return call(real, method, args);
            });
  }

  private static Object call(Object target, Method method, Object[] args) throws Throwable {
    try {
      return method.invoke(target, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }
}
