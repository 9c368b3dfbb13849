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
 * The PostgreSQL store's work through the bare JDBC driver, one connection per thread (no pool),
 * statements prepared once per connection with the driver's defaults. Two variants:
 * <ul>
 *   <li>{@code locking}: the store's own statements. A claim is a transaction of lock-order.sql
 *       ({@code SELECT ... FOR UPDATE}) and insert-order.sql; a complete a transaction of
 *       lock-order.sql, a token comparison and update-order.sql: four round trips each, with
 *       COMMIT;
 *   <li>{@code cas}: one statement each, in autocommit: postgres-cas-claim.sql
 *       ({@code INSERT ... ON CONFLICT DO UPDATE ... WHERE}) and postgres-cas-complete.sql
 *       ({@code UPDATE ... WHERE fence = ? AND claim_nonce = ?}): the ceiling of a
 *       single-statement fast path.
 * </ul>
 * The tables are created by opening the store with {@code createSchema(true)} once.
 */
final class RawPostgres implements RawDriver {

  private static final String STORE_SQL = "/org/fencekit/store/postgres/";
  private static final String BENCH_SQL = "/org/fencekit/bench/";

  private final String url;
  private final boolean cas;

  RawPostgres(String url, boolean cas) {
    this.url = url;
    this.cas = cas;
    PostgresOrderStore.builder().jdbcUrl(url).createSchema(true).build().close();
  }

  @Override
  public Session session() {
    try {
      return cas ? new CasSession() : new LockingSession();
    } catch (SQLException e) {
      throw new IllegalStateException("could not connect to PostgreSQL: " + e.getMessage(), e);
    }
  }

  @Override
  public void close() {}

  private static IllegalStateException failed(String sessionId, SQLException e) {
    return new IllegalStateException("raw postgres claim/complete of " + sessionId + " failed: " + e.getMessage(), e);
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
        if (insert.executeUpdate() != 1) {
          throw new IllegalStateException("fresh order " + sessionId + " was not created");
        }
        connection.commit();

        lock.setString(1, sessionId);
        long fence;
        try (ResultSet rs = lock.executeQuery()) {
          if (!rs.next() || !nonce.equals(rs.getString("claim_nonce"))) {
            throw new IllegalStateException("the owner's complete of " + sessionId + " was refused");
          }
          fence = rs.getLong("fence");
        }
        i = 1;
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

  private final class CasSession extends JdbcSession {
    private final PreparedStatement claim;
    private final PreparedStatement complete;

    CasSession() throws SQLException {
      claim = connection.prepareStatement(Resources.text(BENCH_SQL + "postgres-cas-claim.sql"));
      complete = connection.prepareStatement(Resources.text(BENCH_SQL + "postgres-cas-complete.sql"));
    }

    @Override
    public void claimComplete(String sessionId, long now) {
      String nonce = ClaimId.newNonce();
      try {
        int i = 1;
        claim.setString(i++, sessionId);
        claim.setString(i++, "esim-eu-5gb");
        claim.setInt(i++, 1);
        claim.setString(i++, "customer@example.com");
        claim.setLong(i++, 1999);
        claim.setString(i++, "usd");
        claim.setString(i++, nonce);
        claim.setLong(i++, now);
        claim.setLong(i++, now + ClaimCompleteBenchmark.LEASE.toMillis());
        claim.setLong(i, now);
        long fence;
        try (ResultSet rs = claim.executeQuery()) {
          if (!rs.next()) {
            throw new IllegalStateException("fresh order " + sessionId + " was not claimed");
          }
          fence = rs.getLong(1);
        }
        i = 1;
        complete.setString(i++, Orders.ITEM.providerOrderId());
        complete.setString(i++, Orders.ITEM.payload());
        complete.setLong(i++, now);
        complete.setString(i++, sessionId);
        complete.setLong(i++, fence);
        complete.setString(i, nonce);
        if (complete.executeUpdate() != 1) {
          throw new IllegalStateException("the owner's complete of " + sessionId + " was refused");
        }
      } catch (SQLException e) {
        throw failed(sessionId, e);
      }
    }
  }
}
