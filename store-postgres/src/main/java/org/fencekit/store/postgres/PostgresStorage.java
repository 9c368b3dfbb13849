package org.fencekit.store.postgres;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.fencekit.store.ClaimId;
import org.fencekit.store.OrderRecord;
import org.fencekit.store.OrderSnapshot;
import org.fencekit.store.jdbc.FastSettle;
import org.fencekit.store.jdbc.JdbcAdminStorage;
import org.fencekit.store.jdbc.JdbcLockedOrder;
import org.fencekit.store.jdbc.JdbcStorage;
import org.fencekit.store.jdbc.Migrations;
import org.fencekit.store.jdbc.OrderRows;
import org.fencekit.store.spi.OrderStateMachine;
import org.fencekit.store.spi.WriteRequest;

/**
 * The PostgreSQL {@link org.fencekit.store.spi.Storage}: each atomic step is one READ COMMITTED
 * transaction on one pooled connection, whose first statement locks the order's row ({@code SELECT
 * ... FOR UPDATE}). It decides nothing; {@link org.fencekit.store.spi.FencedOrderStore} does. It
 * also runs the fast path's single statements ({@link #insertFast}, {@link #settleFast}), which
 * write only where their WHERE or ON CONFLICT clause holds and report what they wrote; {@link
 * FastPath} decides around them. The reads of an order or its orphans and the admin queries ({@link
 * JdbcAdminStorage}) run as one statement in a transaction each. At start the schema version is
 * checked, and brought up to date when the store may ({@link Migrations}).
 *
 * <p>READ COMMITTED is enough: each decision is made on a row read {@code FOR UPDATE}, which
 * PostgreSQL returns as last committed (after waiting for a transaction holding it) and keeps from
 * change until this transaction ends; a row that does not exist yet is covered by the primary key,
 * whose insert waits for a concurrent one and then inserts nothing.
 *
 * <p>A transaction that hits a deadlock (40P01) or a serialization failure (40001) was rolled back
 * by the server, so it is run again from the start ({@link JdbcStorage}, which runs the
 * transactions and reports failures as {@link org.fencekit.store.StoreUnavailableException}).
 */
final class PostgresStorage extends JdbcStorage {

  private static final String BACKEND = "postgres";
  private static final Set<String> RETRYABLE = Set.of("40001", "40P01");

  /** Two stores creating the same tables at once can collide in the catalogs; run again. */
  private static final Set<String> DDL_RACE = Set.of("23505", "42P07", "42710", "42P06");

  private final Sql sql;
  private final boolean serverTime;

  /**
   * @param connections where and how the storage connects
   * @param sql the statements for the configured tables
   * @param serverTime whether each step reads {@code now} from the server ({@code
   *     clock_timestamp()}, in its locking read)
   */
  PostgresStorage(Connections connections, Sql sql, boolean serverTime) {
    super(connections, sql.selectOrder(), sql.selectOrphans(), sql.admin(), true);
    this.sql = sql;
    this.serverTime = serverTime;
  }

  /**
   * Checks the schema version in one transaction that holds an advisory lock on the orders table's
   * name, so stores starting at once check (and upgrade) one after the other; with {@code create},
   * creates the namespace if configured and runs the missing scripts in that transaction.
   */
  @Override
  protected List<Migrations.Script> migrate(
      String operation, String sessionId, boolean create, boolean namespace) {
    return transaction(
        operation,
        sessionId,
        e -> retryable(e) || DDL_RACE.contains(state(e)),
        tx -> {
          try (PreparedStatement lock = prepare(tx.connection(), sql.lockMigrations())) {
            lock.setString(1, sql.probe().ordersTable());
            lock.execute();
          }
          if (create && namespace) {
            tx.wrote(true);
            try (Statement statement = tx.connection().createStatement()) {
              statement.setQueryTimeout(queryTimeoutSeconds());
              statement.execute(sql.createNamespace());
            }
          }
          List<Migrations.Script> ran =
              Migrations.ensure(
                  tx.connection(),
                  sql.probe(),
                  sql.templates(),
                  origin(sql.probe().ordersTable()),
                  create);
          tx.wrote(!ran.isEmpty());
          return ran;
        });
  }

  @Override
  protected JdbcLockedOrder lockedOrder(Tx tx, String sessionId) {
    return new StepOrder(tx, sessionId, sql.forSteps(serverTime));
  }

  /** The fast path's first claim ({@link JdbcStorage#insertFast}). */
  boolean insertFast(OrderRecord created) {
    return insertFast(sql.insertOrder(), created);
  }

  /** The complete's conditional {@code UPDATE} alone ({@link JdbcStorage#completeAlone}). */
  boolean completeAlone(WriteRequest.Complete complete, Instant now) {
    return completeAlone(sql.completeAlone(), complete, now);
  }

  /**
   * The single-statement complete, fail or extend (complete-fast.sql, fail-fast.sql,
   * extend-fast.sql): writes the request's new state if its token is the order's current claim
   * (and, for a settle, not the token that settled it last); one statement in auto-commit.
   *
   * @param request the validated write
   * @param now the call's time, at millisecond precision
   * @return the row as written, or empty if the statement wrote nothing (superseded, replay,
   *     unknown order, or the server rolled the statement back with 40001 or 40P01): the caller
   *     then decides in a transaction
   */
  Optional<OrderRecord> settleFast(WriteRequest request, Instant now) {
    ClaimId claimId = request.claimId();
    if (request instanceof WriteRequest.Complete complete) {
      return single(
          "complete",
          request.sessionId(),
          sql.completeFast(),
          statement -> {
            FastSettle.bindComplete(statement, complete, now);
            return OrderRows.orderIfAny(statement);
          },
          Optional.empty());
    }
    if (request instanceof WriteRequest.Fail fail) {
      return single(
          "fail",
          request.sessionId(),
          sql.failFast(),
          statement -> {
            statement.setString(1, fail.error());
            statement.setLong(2, claimId.fence());
            statement.setString(3, claimId.nonce());
            statement.setLong(4, now.toEpochMilli());
            statement.setLong(5, now.toEpochMilli());
            bindToken(statement, 6, request);
            return OrderRows.orderIfAny(statement);
          },
          Optional.empty());
    }
    WriteRequest.Extend extend = (WriteRequest.Extend) request;
    return single(
        "extend",
        request.sessionId(),
        sql.extendFast(),
        statement -> {
          statement.setLong(1, OrderStateMachine.leaseEnd(now, extend.lease()).toEpochMilli());
          statement.setLong(2, now.toEpochMilli());
          bindToken(statement, 3, request);
          return OrderRows.orderIfAny(statement);
        },
        Optional.empty());
  }

  /**
   * What the single-statement re-claim found: the row it wrote, or else the order as the
   * statement's snapshot read it (without its row lock); neither where there is no order or the
   * server rolled the statement back (40001 or 40P01).
   */
  record Reclaim(OrderRecord written, OrderRecord read) {

    /** No order, or the statement rolled back: the caller decides in a transaction. */
    static final Reclaim NOTHING = new Reclaim(null, null);
  }

  /**
   * The single-statement re-claim (reclaim-fast.sql): claims an order that exists where it is not
   * provisioned and holds no live lease at {@code now}, and is the same order as {@code offered}
   * (every {@link org.fencekit.store.OrderField}); one statement in auto-commit, which returns the
   * order as it read it where it wrote nothing.
   *
   * @param nonce the new claim's nonce
   * @param now the call's time, at millisecond precision
   * @param expires the new lease's end
   */
  Reclaim reclaimFast(OrderSnapshot offered, String nonce, Instant now, Instant expires) {
    String sessionId = offered.sessionId();
    return single(
        "claim",
        sessionId,
        sql.reclaimFast(),
        statement -> {
          statement.setString(1, nonce);
          statement.setLong(2, now.toEpochMilli());
          statement.setLong(3, expires.toEpochMilli());
          statement.setLong(4, now.toEpochMilli());
          statement.setString(5, sessionId);
          statement.setLong(6, now.toEpochMilli());
          statement.setString(7, offered.productId());
          statement.setInt(8, offered.quantity());
          statement.setLong(9, offered.amountTotal());
          statement.setString(10, offered.currency());
          statement.setString(11, sessionId);
          try (ResultSet rows = statement.executeQuery()) {
            if (!rows.next()) {
              return Reclaim.NOTHING;
            }
            OrderRecord row = OrderRows.order(rows);
            // written: the column after the order's (by position, as the order's are read)
            return rows.getBoolean(OrderRows.ORDER_COLUMNS.size() + 1)
                ? new Reclaim(row, null)
                : new Reclaim(null, row);
          }
        },
        Reclaim.NOTHING);
  }

  /** Binds session_id, then the token's fence and nonce, from {@code index} on. */
  private static void bindToken(PreparedStatement statement, int index, WriteRequest request)
      throws SQLException {
    statement.setString(index, request.sessionId());
    statement.setLong(index + 1, request.claimId().fence());
    statement.setString(index + 2, request.claimId().nonce());
  }

  /**
   * A statement that may write, alone in auto-commit ({@link #single(String, String, String,
   * StatementWork, Object, boolean)}). A 40001 or 40P01 (possible at REPEATABLE READ or
   * SERIALIZABLE, where a row changed since the statement's snapshot cannot be updated) means the
   * server rolled the statement back: the result is {@code nothing}.
   */
  private <T> T single(
      String operation, String sessionId, String statementSql, StatementWork<T> work, T nothing) {
    return single(operation, sessionId, statementSql, work, nothing, true);
  }

  /**
   * Whether the server answered the statement with an error, which in auto-commit means it rolled
   * the statement back; a lost connection (class 08, no SQLState) or a terminated backend (57P0x)
   * leaves it unknown whether the statement committed before the answer was lost.
   */
  @Override
  protected boolean answeredWithError(SQLException e) {
    String state = state(e);
    return !state.isEmpty()
        && !state.startsWith("08")
        && !state.startsWith("57P")
        && !connectionFailure(e);
  }

  @Override
  protected boolean retryable(SQLException e) {
    return RETRYABLE.contains(state(e));
  }

  @Override
  protected String remedy(SQLException e, int attempts) {
    String state = state(e);
    if (retryable(e)) {
      return "gave up after "
          + attempts
          + " runs of the transaction that each met a deadlock or"
          + " serialization failure; retry the call later";
    }
    if (state.startsWith("08")
        || state.startsWith("53")
        || state.equals("57P01")
        || state.equals("57P02")
        || state.equals("57P03")
        || connectionFailure(e)) {
      return "check that PostgreSQL is up and reachable at "
          + target()
          + ", and that the pool has connections to spare for the callers waiting";
    }
    if (state.equals("57014") || state.equals("55P03")) {
      return "a statement waited longer than the query timeout ("
          + queryTimeoutSeconds()
          + " s) or was cancelled: look in pg_stat_activity for a transaction holding this"
          + " order's row lock, or raise queryTimeout";
    }
    if (state.equals("42P01") || state.equals("3F000")) {
      return "the fencekit tables do not exist at "
          + target()
          + ": build the store with createSchema(true), or run the scripts"
          + " db/migration/fencekit/postgres/V*.sql from the store-postgres jar";
    }
    if (state.equals("42501")) {
      return "the database user lacks a privilege: grant SELECT, INSERT and UPDATE on both"
          + " fencekit tables, SELECT on their version table (and USAGE on their schema);"
          + " createSchema(true) also needs CREATE, even when the tables exist, so leave it off"
          + " for such a user and run the scripts db/migration/fencekit/postgres/V*.sql from your"
          + " migrations";
    }
    if (state.equals("25006")) {
      return "the server is a read-only standby: point the store at the primary";
    }
    return "see the cause for the driver's exception";
  }
}
