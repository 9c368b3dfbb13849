package org.fencekit.bench;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import org.fencekit.store.ClaimId;
import org.fencekit.store.postgres.PostgresOrderStore;

/**
 * The PostgreSQL store's statements through the bare JDBC driver, one connection per thread (no
 * pool), prepared once per connection with the driver's defaults. Two variants:
 *
 * <ul>
 *   <li>{@code locking}: a claim is a transaction of lock-order.sql ({@code SELECT ... FOR UPDATE})
 *       and insert-order.sql; a complete a transaction of lock-order.sql, a token comparison and
 *       update-order.sql: three round trips each, COMMIT included;
 *   <li>{@code single}: the store's fast path in auto-commit, one round trip each: insert-order.sql
 *       ({@code INSERT ... ON CONFLICT DO NOTHING}) to claim, complete-fast.sql ({@code UPDATE ...
 *       WHERE} fence and nonce are the token's) to complete.
 * </ul>
 *
 * The tables are created by opening the store with {@code createSchema(true)} once.
 */
final class RawPostgres implements RawDriver {

  private static final String STORE_SQL = "/org/fencekit/store/postgres/";

  private final String url;
  private final boolean single;

  RawPostgres(String url, boolean single) {
    this.url = url;
    this.single = single;
    PostgresOrderStore.builder().jdbcUrl(url).createSchema(true).build().close();
  }

  @Override
  public Session session() {
    try {
      return single ? new SingleStatementSession() : new LockingSession();
    } catch (SQLException e) {
      throw new IllegalStateException("could not connect to PostgreSQL: " + e.getMessage(), e);
    }
  }

  @Override
  public void close() {}

  private static IllegalStateException failed(String sessionId, SQLException e) {
    return new IllegalStateException(
        "raw postgres claim/complete of " + sessionId + " failed: " + e.getMessage(), e);
  }

  /** Binds insert-order.sql for a first claim: PENDING, fence 1, the claim, nothing settled. */
  private static void bindInsert(PreparedStatement insert, String sessionId, String nonce, long now)
      throws SQLException {
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
    insert.setString(i++, nonce);
    insert.setLong(i++, now);
    insert.setLong(i++, now + ClaimCompleteBenchmark.LEASE.toMillis());
    insert.setNull(i++, Types.BIGINT);
    insert.setNull(i++, Types.VARCHAR);
    insert.setLong(i, now);
  }

  private abstract class JdbcSession implements Session {
    final Connection connection;

    JdbcSession() throws SQLException {
      connection = DriverManager.getConnection(url);
    }

    @Override
    public void close() {
      try {
        connection.close();
      } catch (SQLException e) {
        throw new IllegalStateException("could not close a PostgreSQL connection", e);
      }
    }
  }

  private final class LockingSession extends JdbcSession {
    private final PreparedStatement lock;
    private final PreparedStatement insert;
    private final PreparedStatement update;

    LockingSession() throws SQLException {
      connection.setAutoCommit(false);
      lock = connection.prepareStatement(Resources.text(STORE_SQL + "lock-order.sql"));
      insert = connection.prepareStatement(Resources.text(STORE_SQL + "insert-order.sql"));
      update = connection.prepareStatement(Resources.text(STORE_SQL + "update-order.sql"));
    }

    @Override
    public void claimComplete(String sessionId, long now) {
      String nonce = ClaimId.newNonce();
      try {
        lock.setString(1, sessionId);
        try (ResultSet rs = lock.executeQuery()) {
          if (rs.next()) {
            throw new IllegalStateException("fresh order " + sessionId + " exists already");
          }
        }
        bindInsert(insert, sessionId, nonce, now);
        if (insert.executeUpdate() != 1) {
          throw new IllegalStateException("fresh order " + sessionId + " was not created");
        }
        connection.commit();

        lock.setString(1, sessionId);
        long fence;
        try (ResultSet rs = lock.executeQuery()) {
          if (!rs.next() || !nonce.equals(rs.getString("claim_nonce"))) {
            throw new IllegalStateException(
                "the owner's complete of " + sessionId + " was refused");
          }
          fence = rs.getLong("fence");
        }
        int i = 1;
        update.setString(i++, "PROVISIONED");
        update.setString(i++, Orders.ITEM.providerOrderId());
        update.setString(i++, Orders.ITEM.payload());
        update.setNull(i++, Types.VARCHAR);
        update.setLong(i++, fence);
        update.setNull(i++, Types.VARCHAR);
        update.setNull(i++, Types.BIGINT);
        update.setNull(i++, Types.BIGINT);
        update.setLong(i++, fence);
        update.setString(i++, nonce);
        update.setLong(i++, now);
        update.setString(i, sessionId);
        update.executeUpdate();
        connection.commit();
      } catch (SQLException e) {
        throw failed(sessionId, e);
      }
    }
  }

  private final class SingleStatementSession extends JdbcSession {
    private final PreparedStatement insert;
    private final PreparedStatement complete;

    SingleStatementSession() throws SQLException {
      insert = connection.prepareStatement(Resources.text(STORE_SQL + "insert-order.sql"));
      complete = connection.prepareStatement(Resources.text(STORE_SQL + "complete-fast.sql"));
    }

    @Override
    public void claimComplete(String sessionId, long now) {
      String nonce = ClaimId.newNonce();
      try {
        bindInsert(insert, sessionId, nonce, now);
        if (insert.executeUpdate() != 1) {
          throw new IllegalStateException("fresh order " + sessionId + " was not claimed");
        }
        int i = 1;
        complete.setString(i++, Orders.ITEM.providerOrderId());
        complete.setString(i++, Orders.ITEM.payload());
        complete.setLong(i++, 1);
        complete.setString(i++, nonce);
        complete.setLong(i++, now);
        complete.setString(i++, sessionId);
        complete.setLong(i++, 1);
        complete.setString(i, nonce);
        try (ResultSet rs = complete.executeQuery()) {
          if (!rs.next()) {
            throw new IllegalStateException(
                "the owner's complete of " + sessionId + " was refused");
          }
        }
      } catch (SQLException e) {
        throw failed(sessionId, e);
      }
    }
  }
}
