package org.fencekit.testsupport;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;

/**
 * Server sessions a test expects to end (a pool closed, say): counted by a query, polled until none
 * is left. A server ends a session soon after its client closes it, not at once.
 */
public final class OpenSessions {

  private OpenSessions() {}

  /** Opens a connection to the server the sessions are on, for one count. */
  @FunctionalInterface
  public interface Connect {
    Connection open() throws SQLException;
  }

  /**
   * Runs {@code countQuery} with its one parameter set to {@code value} every 50 ms until it
   * answers 0 or {@code within} has passed.
   *
   * @return the last count: 0, or how many sessions were still open at the deadline
   */
  public static int awaitNone(Connect connect, String countQuery, String value, Duration within)
      throws SQLException, InterruptedException {
    long deadline = System.nanoTime() + within.toNanos();
    while (true) {
      int open;
      try (Connection connection = connect.open();
          PreparedStatement query = connection.prepareStatement(countQuery)) {
        query.setString(1, value);
        try (ResultSet rows = query.executeQuery()) {
          rows.next();
          open = rows.getInt(1);
        }
      }
      if (open == 0 || System.nanoTime() >= deadline) {
        return open;
      }
      Thread.sleep(50);
    }
  }
}
