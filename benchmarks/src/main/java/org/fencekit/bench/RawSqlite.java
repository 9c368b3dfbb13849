package org.fencekit.bench;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.concurrent.locks.ReentrantLock;
import org.fencekit.store.ClaimId;
import org.fencekit.store.sqlite.SqliteOrderStore;
import org.sqlite.SQLiteConfig;

/**
 * The SQLite store's statements through bare JDBC: each thread has its own connection (WAL, the
 * store's {@code synchronous} setting, {@code busy_timeout} 5 s), with its statements prepared
 * once. A claim is {@code BEGIN IMMEDIATE}, the store's select-order.sql, insert-order.sql, COMMIT;
 * a complete is {@code BEGIN IMMEDIATE}, select-order.sql, a token comparison, update-order.sql,
 * COMMIT. Writers of this process queue on one plain lock, the cheapest way not to poll in SQLite's
 * busy handler. The tables are created by opening the store on the file once.
 */
final class RawSqlite implements RawDriver {

  private static final String ORDERS = "fencekit_orders";

  private final Path file;
  private final SqliteOrderStore.Synchronous synchronous;
  private final ReentrantLock writes = new ReentrantLock();
  private final String selectOrder = statement("select-order.sql");
  private final String insertOrder = statement("insert-order.sql");
  private final String updateOrder = statement("update-order.sql");

  RawSqlite(SqliteOrderStore.Synchronous synchronous) {
    this.synchronous = synchronous;
    this.file = StoreType.freshFile();
    SqliteOrderStore.builder(file).build().close();
  }

  private static String statement(String name) {
    return Resources.text("/org/fencekit/store/sqlite/" + name)
        .replace("${orders}", ORDERS)
        .replace("${orphans}", "fencekit_orphans");
  }

  @Override
  public Session session() {
    try {
      return new JdbcSession();
    } catch (SQLException e) {
      throw new IllegalStateException("could not open " + file + ": " + e.getMessage(), e);
    }
  }

  /** Deletes the database file; the sessions are closed by then. */
  @Override
  public void close() {
    StoreType.deleteFresh(file);
  }

  private final class JdbcSession implements Session {
    private final Connection connection;
    private final PreparedStatement begin;
    private final PreparedStatement commit;
    private final PreparedStatement select;
    private final PreparedStatement insert;
    private final PreparedStatement update;

    JdbcSession() throws SQLException {
      SQLiteConfig config = new SQLiteConfig();
      config.setBusyTimeout(5000);
      config.setSynchronous(
          synchronous == SqliteOrderStore.Synchronous.FULL
              ? SQLiteConfig.SynchronousMode.FULL
              : SQLiteConfig.SynchronousMode.NORMAL);
      config.setJournalMode(SQLiteConfig.JournalMode.WAL);
      connection = config.createConnection("jdbc:sqlite:" + file);
      begin = connection.prepareStatement("BEGIN IMMEDIATE");
      commit = connection.prepareStatement("COMMIT");
      select = connection.prepareStatement(selectOrder);
      insert = connection.prepareStatement(insertOrder);
      update = connection.prepareStatement(updateOrder);
    }

    @Override
    public void claimComplete(String sessionId, long now) {
      String nonce = ClaimId.newNonce();
      try {
        writes.lock();
        try {
          begin.execute();
          if (exists(sessionId)) {
            throw new IllegalStateException("fresh order " + sessionId + " exists already");
          }
          int i = 1;
          insert.setString(i++, sessionId);
          insert.setString(i++, "esim-eu-5gb");
          insert.setInt(i++, 1);
          insert.setString(i++, "customer@example.com");
          insert.setLong(i++, 1999);
          insert.setString(i++, "usd");
          insert.setString(i++, "PENDING");
          insert.setNull(i++, Types.VARCHAR);
          insert.setNull(i++, Types.VARCHAR);
          insert.setNull(i++, Types.VARCHAR);
          insert.setLong(i++, 1);
          insert.setLong(i++, 1);
          insert.setString(i++, nonce);
          insert.setLong(i++, now);
          insert.setLong(i++, now + ClaimCompleteBenchmark.LEASE.toMillis());
          insert.setNull(i++, Types.INTEGER);
          insert.setNull(i++, Types.VARCHAR);
          insert.setLong(i, now);
          if (insert.executeUpdate() != 1) {
            throw new IllegalStateException("fresh order " + sessionId + " was not created");
          }
          commit.execute();
        } finally {
          writes.unlock();
        }
        writes.lock();
        try {
          begin.execute();
          select.setString(1, sessionId);
          long fence;
          try (ResultSet rs = select.executeQuery()) {
            if (!rs.next() || !nonce.equals(rs.getString("claim_nonce"))) {
              throw new IllegalStateException(
                  "the owner's complete of " + sessionId + " was refused");
            }
            fence = rs.getLong("claim_fence");
          }
          int i = 1;
          update.setString(i++, "PROVISIONED");
          update.setString(i++, Orders.ITEM.providerOrderId());
          update.setString(i++, Orders.ITEM.payload());
          update.setNull(i++, Types.VARCHAR);
          update.setLong(i++, fence);
          update.setNull(i++, Types.INTEGER);
          update.setNull(i++, Types.VARCHAR);
          update.setNull(i++, Types.INTEGER);
          update.setNull(i++, Types.INTEGER);
          update.setLong(i++, fence);
          update.setString(i++, nonce);
          update.setLong(i++, now);
          update.setString(i, sessionId);
          update.executeUpdate();
          commit.execute();
        } finally {
          writes.unlock();
        }
      } catch (SQLException e) {
        throw new IllegalStateException(
            "raw sqlite claim/complete of " + sessionId + " failed: " + e.getMessage(), e);
      }
    }

    private boolean exists(String sessionId) throws SQLException {
      select.setString(1, sessionId);
      try (ResultSet rs = select.executeQuery()) {
        return rs.next();
      }
    }

    @Override
    public void close() {
      try {
        connection.close();
      } catch (SQLException e) {
        throw new IllegalStateException("could not close a connection to " + file, e);
      }
    }
  }
}
