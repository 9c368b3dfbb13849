package org.fencekit.store.mysql;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLTimeoutException;
import java.sql.Statement;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.fencekit.store.OrderRecord;
import org.fencekit.store.StoreUnavailableException;
import org.fencekit.store.jdbc.JdbcLockedOrder;
import org.fencekit.store.jdbc.JdbcStorage;
import org.fencekit.store.jdbc.Migrations;
import org.fencekit.store.spi.WriteRequest;

/**
 * The MySQL {@link org.fencekit.store.spi.Storage}: {@link JdbcStorage}'s locking transactions
 * (READ COMMITTED, the order's row read {@code FOR UPDATE}) with what MySQL says differently: a
 * duplicate key (1062) for an insert that finds its row, a deadlock (1213) or a lock wait timeout
 * (1205) for a transaction the server rolled back (or, for 1205, whose statement it undid: the
 * store then rolls back the rest) and so runs again, the connection errors that leave a commit
 * unknown, and a named lock around the migrations, whose DDL commits statement by statement.
 */
final class MysqlStorage extends JdbcStorage {

  static final String BACKEND = "mysql";

  /** ER_DUP_ENTRY: the row exists; the server undid the statement only. */
  static final int DUPLICATE_KEY = 1062;

  /** ER_LOCK_DEADLOCK and ER_LOCK_WAIT_TIMEOUT. */
  private static final Set<Integer> RETRYABLE = Set.of(1213, 1205);

  /** A column (1060) or an index (1061) a migration adds exists already: a run cut short. */
  private static final Set<Integer> ALREADY_DONE = Set.of(1060, 1061);

  /**
   * Errors the server sends as it drops the connection (killed: 1927; shutting down: 1053, 1077)
   * and the client's own for a lost server (2006, 2013): a statement they hit may have committed.
   */
  private static final Set<Integer> CONNECTION_LOST = Set.of(1927, 1053, 1077, 2006, 2013);

  private final Sql sql;
  private final boolean serverTime;

  /**
   * Whether the DataSource lends connections at another isolation than READ COMMITTED, so that each
   * transaction sets it first; null until the first transaction has read it.
   */
  private volatile Boolean setReadCommitted;

  /**
   * @param connections where and how the storage connects
   * @param sql the statements for the configured tables
   * @param serverTime whether each step reads {@code now} from the server (in its locking read,
   *     lock-order-server-time.sql)
   */
  MysqlStorage(Connections connections, Sql sql, boolean serverTime) {
    // the store's deadline thread keeps the single statements' query timeout: Connector/J's timer
    // task per statement cost 15-20% of a claim + complete (docs/where-the-time-goes.md)
    super(connections, sql.selectOrder(), sql.selectOrphans(), sql.admin(), true);
    this.sql = sql;
    this.serverTime = serverTime;
  }

  /**
   * Checks the schema version under lock-migrations.sql's named lock, so stores starting at once
   * check (and upgrade) one after the other; with {@code create}, runs the missing scripts. MySQL
   * commits each DDL statement as it runs, so a run cut short is finished by the next one (a column
   * or index that exists is skipped), and the version is recorded last.
   */
  @Override
  protected List<Migrations.Script> migrate(
      String operation, String sessionId, boolean create, boolean namespace) {
    String table = sql.probe().ordersTable();
    return transaction(
        operation,
        sessionId,
        this::retryable,
        tx -> {
          try (PreparedStatement lock = prepare(tx.connection(), sql.lockMigrations())) {
            lock.setString(1, table);
            lock.setInt(2, queryTimeoutSeconds());
            try (ResultSet held = lock.executeQuery()) {
              if (!held.next() || held.getInt(1) != 1) {
                throw new SQLTimeoutException(
                    "another store held the migration lock of "
                        + table
                        + " for over "
                        + queryTimeoutSeconds()
                        + " s",
                    "HY000");
              }
            }
          }
          try {
            List<Migrations.Script> ran =
                Migrations.ensure(
                    tx.connection(),
                    sql.probe(),
                    sql.templates(),
                    origin(table),
                    create,
                    e -> ALREADY_DONE.contains(e.getErrorCode()));
            tx.wrote(!ran.isEmpty());
            return ran;
          } finally {
            try (PreparedStatement release = prepare(tx.connection(), sql.releaseMigrations())) {
              release.setString(1, table);
              release.execute();
            }
          }
        });
  }

  /**
   * Runs read-committed.sql first when the DataSource lends connections at another isolation
   * (REPEATABLE READ, MySQL's default, takes gap locks on which racing first claims deadlock): it
   * applies to this transaction only, so the connection goes back as it was lent. The isolation is
   * read from the first transaction's connection; connections of one DataSource share it.
   */
  @Override
  protected void beginning(Connection connection) throws SQLException {
    Boolean set = setReadCommitted;
    if (set == null) {
      set = connection.getTransactionIsolation() != Connection.TRANSACTION_READ_COMMITTED;
      setReadCommitted = set;
    }
    if (set) {
      try (Statement statement = connection.createStatement()) {
        statement.execute(sql.readCommitted());
      }
    }
  }

  @Override
  protected JdbcLockedOrder lockedOrder(Tx tx, String sessionId) {
    return new StepOrder(tx, sessionId, sql.steps(serverTime));
  }

  @Override
  protected boolean duplicateKey(SQLException e) {
    return e.getErrorCode() == DUPLICATE_KEY;
  }

  /** The fast path's first claim ({@link JdbcStorage#insertFast}); a duplicate key is a miss. */
  boolean insertFast(OrderRecord created) {
    return insertFast(sql.insertOrder(), created);
  }

  /** The complete's conditional {@code UPDATE} alone ({@link JdbcStorage#completeAlone}). */
  boolean completeAlone(WriteRequest.Complete complete, Instant now) {
    return completeAlone(sql.completeFast(), complete, now);
  }

  /**
   * The fast path's complete: complete-fast.sql alone in auto-commit, then, where it wrote, the row
   * read back alone in auto-commit (exact: a PROVISIONED order never changes again).
   *
   * @param complete the validated complete
   * @param now the call's time, at millisecond precision
   * @return the row as written, or empty if the statement wrote nothing (superseded, replay,
   *     unknown order, or the server rolled it back with 1213 or 1205): the caller then decides in
   *     a transaction
   * @throws StoreUnavailableException outcome unknown, if the statement was sent and not answered,
   *     or if it wrote and the row could not be read back (a retry is a replay, answered Written)
   */
  Optional<OrderRecord> completeFast(WriteRequest.Complete complete, Instant now) {
    if (!completeAlone(complete, now)) {
      return Optional.empty();
    }
    try {
      return Optional.of(
          readAlone("complete", complete.sessionId())
              .orElseThrow(() -> new IllegalStateException("order deleted behind the store")));
    } catch (StoreUnavailableException | IllegalStateException e) {
      throw new StoreUnavailableException(
          BACKEND,
          "complete",
          complete.sessionId(),
          true,
          "the complete was written, but reading the order back failed ("
              + e.getMessage()
              + "); retry the call: the retry is a replay, answered Written",
          e);
    }
  }

  @Override
  protected boolean retryable(SQLException e) {
    return RETRYABLE.contains(e.getErrorCode());
  }

  /**
   * Whether the server answered with an error of its own (a MySQL error number under 2000), which
   * in auto-commit means it undid the statement; a lost or killed connection (class 08, the
   * client's errors, a kill or shutdown notice) leaves it unknown whether the statement committed.
   */
  @Override
  protected boolean answeredWithError(SQLException e) {
    int code = e.getErrorCode();
    return code > 0
        && code < 2000
        && !CONNECTION_LOST.contains(code)
        && !state(e).startsWith("08")
        && !connectionFailure(e);
  }

  @Override
  protected String remedy(SQLException e, int attempts) {
    int code = e.getErrorCode();
    if (retryable(e)) {
      return "gave up after "
          + attempts
          + " runs of the transaction that each met a deadlock (1213) or a lock wait timeout"
          + " (1205); retry the call later, and look in information_schema.innodb_trx for a"
          + " transaction holding this order's row";
    }
    if (state(e).startsWith("08")
        || CONNECTION_LOST.contains(code)
        || code == 1040
        || connectionFailure(e)) {
      return "check that MySQL is up and reachable at "
          + target()
          + ", and that the pool has connections to spare for the callers waiting";
    }
    // 70100: Connector/J's answer to a cancel, which the store's deadline thread sends
    if (e instanceof SQLTimeoutException
        || code == 1317
        || code == 3024
        || code == 1969
        || state(e).equals("70100")) {
      return "a statement waited longer than the query timeout ("
          + queryTimeoutSeconds()
          + " s) or was interrupted: look in SHOW PROCESSLIST and information_schema.innodb_trx"
          + " for a transaction holding this order's row or a LOCK TABLES holding its table,"
          + " or raise queryTimeout";
    }
    if (code == 1146 || code == 1046 || code == 1049) {
      return "the fencekit tables do not exist at "
          + target()
          + " (or the JDBC URL names no database): name the database in the URL, and build the"
          + " store with createSchema(true), or run the scripts db/migration/fencekit/mysql/V*.sql"
          + " from the store-mysql jar";
    }
    if (code == 1142 || code == 1143 || code == 1044 || code == 1045) {
      return "the database user lacks a privilege (or its password is wrong): grant SELECT,"
          + " INSERT and UPDATE on both fencekit tables and SELECT on their version table;"
          + " createSchema(true) also needs CREATE, ALTER and INDEX, so leave it off for a"
          + " least-privilege user and run db/migration/fencekit/mysql/V*.sql from your"
          + " migrations";
    }
    if (code == 1290 || code == 1792) {
      return "the server is read-only (a replica, or read_only is set): point the store at the"
          + " primary";
    }
    return "see the cause for the driver's exception";
  }
}
