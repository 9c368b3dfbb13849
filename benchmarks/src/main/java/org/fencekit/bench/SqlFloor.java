package org.fencekit.bench;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLIntegrityConstraintViolationException;
import java.sql.Statement;
import org.fencekit.store.ClaimId;
import org.fencekit.store.Item;
import org.fencekit.store.OrderSnapshot;

/**
 * The floor of a SQL store: the minimal correct fenced compare-and-set on the store's data, which
 * the cost probes ({@link PostgresCost}, {@link MysqlCost}) measure beside the store. One table
 * keyed by the session id and nothing else indexed; each statement in auto-commit:
 *
 * <ol>
 *   <li>claim: PostgreSQL's one {@code INSERT ... ON CONFLICT DO UPDATE ... WHERE ... RETURNING}
 *       creates the order with its snapshot, fence 1, a nonce and a lease, or claims it again under
 *       fence + 1 where it is not provisioned and holds no live lease; MySQL's plain {@code INSERT}
 *       creates it, and on a duplicate key an {@code UPDATE} claims it again and a read gets the
 *       fence;
 *   <li>complete: one {@code UPDATE ... WHERE session_id, fence and nonce match} writes the item
 *       and the settled token; when it matches no row, one {@code INSERT ... SELECT ... WHERE NOT
 *       EXISTS} keeps the item as an orphan unless the token settled the order (a replay).
 * </ol>
 *
 * A fresh order's claim + complete is two statements on either. The SQL is in this module's
 * resources ({@code pg-floor-*.sql}, {@code mysql-floor-*.sql}, {@code floor-*.sql}).
 *
 * <p>The <em>indexed</em> floor on PostgreSQL ({@link #postgresIndexed}) adds the one index an
 * exact stuck-order listing needs, and the store keeps: the held claims by lease end, a partial
 * index on {@code lease_expires_at} of the rows that hold a claim ({@code
 * pg-floor-held-index.sql}). Its complete clears the claim, so the row leaves the index's
 * predicate: never a HOT update.
 */
final class SqlFloor implements AutoCloseable {

  /** What a complete did. */
  enum Completed {
    /** The token was current: the item is written and the order settled. */
    WRITTEN,
    /** The token settled the order already: nothing written. */
    REPLAY,
    /** The token is superseded: the item is kept as an orphan (once). */
    SUPERSEDED
  }

  private static final String SQL = "/org/fencekit/bench/";

  private final Connection connection;
  private final boolean postgres;
  private final PreparedStatement claim;
  private final PreparedStatement reclaim;
  private final PreparedStatement fence;
  private final PreparedStatement complete;
  private final PreparedStatement orphan;
  private final PreparedStatement settled;

  private SqlFloor(Connection connection, boolean postgres, boolean indexed) throws SQLException {
    this.connection = connection;
    this.postgres = postgres;
    String dialect = postgres ? "pg-" : "mysql-";
    connection.setAutoCommit(true);
    String ddl =
        RawRedis.resource(SQL + dialect + "floor-tables.sql")
            + (indexed ? RawRedis.resource(SQL + "pg-floor-held-index.sql") : "");
    try (Statement create = connection.createStatement()) {
      for (String table : ddl.split(";\\s*\\n")) {
        if (!table.isBlank()) {
          create.execute(table);
        }
      }
    }
    claim = prepare(postgres ? "pg-floor-claim.sql" : "mysql-floor-insert.sql");
    reclaim = postgres ? null : prepare("mysql-floor-reclaim.sql");
    fence = postgres ? null : prepare("mysql-floor-fence.sql");
    complete = prepare("floor-complete.sql");
    orphan = prepare(dialect + "floor-orphan.sql");
    settled = prepare("floor-settled.sql");
  }

  /** The floor on PostgreSQL, its tables created in {@code connection}'s current schema. */
  static SqlFloor postgres(Connection connection) throws SQLException {
    return new SqlFloor(connection, true, false);
  }

  /**
   * The indexed floor on PostgreSQL: the floor and its held claims' partial index, created in
   * {@code connection}'s current schema.
   */
  static SqlFloor postgresIndexed(Connection connection) throws SQLException {
    return new SqlFloor(connection, true, true);
  }

  /** The floor on MySQL or MariaDB, its tables created in {@code connection}'s database. */
  static SqlFloor mysql(Connection connection) throws SQLException {
    return new SqlFloor(connection, false, false);
  }

  /**
   * Claims {@code order} at {@code now} for {@code leaseMillis} with {@code nonce}: the fence
   * granted, or 0 if refused (provisioned, or a live lease).
   */
  long claim(OrderSnapshot order, String nonce, long now, long leaseMillis) throws SQLException {
    claim.setString(1, order.sessionId());
    claim.setString(2, order.productId());
    claim.setInt(3, order.quantity());
    claim.setString(4, order.customerEmail());
    claim.setLong(5, order.amountTotal());
    claim.setString(6, order.currency());
    claim.setString(7, nonce);
    claim.setLong(8, now + leaseMillis);
    claim.setLong(9, now);
    if (postgres) {
      try (ResultSet row = claim.executeQuery()) {
        return row.next() ? row.getLong(1) : 0;
      }
    }
    try {
      claim.executeUpdate();
      return 1;
    } catch (SQLIntegrityConstraintViolationException exists) {
      reclaim.setString(1, nonce);
      reclaim.setLong(2, now + leaseMillis);
      reclaim.setLong(3, now);
      reclaim.setString(4, order.sessionId());
      reclaim.setLong(5, now);
      if (reclaim.executeUpdate() == 0) {
        return 0;
      }
      fence.setString(1, order.sessionId());
      fence.setString(2, nonce);
      try (ResultSet row = fence.executeQuery()) {
        return row.next() ? row.getLong(1) : 0; // 0: claimed again since, by someone else
      }
    }
  }

  /** Completes {@code sessionId}'s order with {@code token} and {@code item} at {@code now}. */
  Completed complete(String sessionId, ClaimId token, Item item, long now) throws SQLException {
    complete.setString(1, item.providerOrderId());
    complete.setString(2, item.payload());
    complete.setLong(3, token.fence());
    complete.setString(4, token.nonce());
    complete.setLong(5, now);
    complete.setString(6, sessionId);
    complete.setLong(7, token.fence());
    complete.setString(8, token.nonce());
    if (complete.executeUpdate() == 1) {
      return Completed.WRITTEN;
    }
    orphan.setString(1, sessionId);
    orphan.setLong(2, token.fence());
    orphan.setString(3, token.nonce());
    orphan.setString(4, item.providerOrderId());
    orphan.setString(5, item.payload());
    orphan.setLong(6, now);
    orphan.setString(7, sessionId);
    orphan.setLong(8, token.fence());
    orphan.setString(9, token.nonce());
    try {
      if (orphan.executeUpdate() == 1) {
        return Completed.SUPERSEDED;
      }
    } catch (SQLIntegrityConstraintViolationException keptBefore) {
      return Completed.SUPERSEDED; // MySQL: this item of this claim is an orphan already
    }
    settled.setString(1, sessionId);
    settled.setLong(2, token.fence());
    settled.setString(3, token.nonce());
    try (ResultSet row = settled.executeQuery()) {
      return row.next() ? Completed.REPLAY : Completed.SUPERSEDED;
    }
  }

  /** Claims and completes the fresh order {@code sessionId}: the probes' one operation. */
  void claimComplete(String sessionId) {
    long now = System.currentTimeMillis();
    String nonce = ClaimId.newNonce();
    try {
      long granted =
          claim(Orders.snapshot(sessionId), nonce, now, ClaimCompleteBenchmark.LEASE.toMillis());
      if (granted != 1) {
        throw new IllegalStateException(
            "fresh order " + sessionId + " was not claimed with fence 1: " + granted);
      }
      Completed done = complete(sessionId, new ClaimId(1, nonce), Orders.ITEM, now);
      if (done != Completed.WRITTEN) {
        throw new IllegalStateException("the owner's complete of " + sessionId + ": " + done);
      }
    } catch (SQLException e) {
      throw new IllegalStateException(
          "the floor's claim + complete of " + sessionId + " failed: " + e.getMessage(), e);
    }
  }

  private PreparedStatement prepare(String resource) throws SQLException {
    return connection.prepareStatement(RawRedis.resource(SQL + resource));
  }

  /** Closes the connection. */
  @Override
  public void close() throws SQLException {
    connection.close();
  }
}
