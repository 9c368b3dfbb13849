package org.fencekit.store.postgres;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTransientConnectionException;
import java.sql.Statement;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import javax.sql.DataSource;
import org.fencekit.store.ClaimId;
import org.fencekit.store.OrderRecord;
import org.fencekit.store.StoreUnavailableException;
import org.fencekit.store.jdbc.JdbcAdminStorage;
import org.fencekit.store.jdbc.JdbcFailure;
import org.fencekit.store.jdbc.JdbcLockedOrder;
import org.fencekit.store.jdbc.Migrations;
import org.fencekit.store.jdbc.OrderRows;
import org.fencekit.store.spi.Credentials;
import org.fencekit.store.spi.OrderStateMachine;
import org.fencekit.store.spi.Validate;
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
 * by the server, so it is run again from the start, at most {@value #MAX_ATTEMPTS} times in all.
 * Any other {@link SQLException} becomes a {@link StoreUnavailableException}, whose outcome is
 * unknown only when the failure came from a COMMIT of a transaction that had written.
 */
final class PostgresStorage extends JdbcAdminStorage {

  /** Runs of one transaction that met a deadlock or serialization failure before giving up. */
  static final int MAX_ATTEMPTS = 10;

  private static final String BACKEND = "postgres";
  private static final Set<String> RETRYABLE = Set.of("40001", "40P01");

  /** Two stores creating the same tables at once can collide in the catalogs; run again. */
  private static final Set<String> DDL_RACE = Set.of("23505", "42P07", "42710", "42P06");

  private final DataSource dataSource;
  private final AutoCloseable ownedPool;
  private final Sql sql;
  private final int queryTimeoutSeconds;
  private final String target;
  private final Credentials credentials;
  private final boolean serverTime;
  private final AtomicBoolean closed = new AtomicBoolean();
  private final AtomicLong retries = new AtomicLong();

  /** Whether the schema version was found right; false until a build or first call checked it. */
  private volatile boolean schemaChecked;

  /** The thread running the first call's check, guarded by this storage's monitor. */
  private Thread schemaChecker;

  /**
   * @param dataSource where connections come from
   * @param ownedPool the pool to close with the storage (the store built it), or {@code null}
   * @param sql the statements for the configured tables
   * @param queryTimeoutSeconds the JDBC query timeout of every statement, at least 1
   * @param target where the data lives, for messages, without credentials
   * @param credentials what must never appear in a message
   * @param serverTime whether each step reads {@code now} from the server ({@code
   *     clock_timestamp()}, in its locking read)
   */
  PostgresStorage(
      DataSource dataSource,
      AutoCloseable ownedPool,
      Sql sql,
      int queryTimeoutSeconds,
      String target,
      Credentials credentials,
      boolean serverTime) {
    super(sql.selectOrder(), sql.selectOrphans(), sql.admin());
    this.dataSource = dataSource;
    this.ownedPool = ownedPool;
    this.sql = sql;
    this.queryTimeoutSeconds = queryTimeoutSeconds;
    this.target = target;
    this.credentials = credentials;
    this.serverTime = serverTime;
  }

  @Override
  public String backend() {
    return BACKEND;
  }

  /** The connections' source, for tests in this package. */
  DataSource dataSource() {
    return dataSource;
  }

  /** Where the data lives, without credentials. */
  String target() {
    return target;
  }

  /** How many transactions were run again after a deadlock or serialization failure. */
  long retries() {
    return retries.get();
  }

  /**
   * Checks the schema version in one transaction that holds an advisory lock on the orders table's
   * name, so stores starting at once check (and upgrade) one after the other; with {@code create},
   * creates the namespace if configured and runs the missing scripts in that transaction.
   *
   * @throws IllegalStateException if the schema is newer, or older and {@code create} is false
   */
  List<Migrations.Script> prepareSchema(boolean create, boolean namespace) {
    return prepareSchema(create ? "createSchema" : "open", null, create, namespace);
  }

  private synchronized List<Migrations.Script> prepareSchema(
      String operation, String sessionId, boolean create, boolean namespace) {
    Thread before = schemaChecker;
    schemaChecker = Thread.currentThread(); // its own transaction must not check first
    try {
      List<Migrations.Script> ran = migrate(operation, sessionId, create, namespace);
      schemaChecked = true;
      return ran;
    } finally {
      schemaChecker = before;
    }
  }

  /**
   * Checks the schema at build. A store that may not create its schema and cannot reach the server
   * yet is built all the same (as before versions were checked): its first call checks instead, so
   * it starts working when PostgreSQL comes back.
   */
  void checkSchemaAtStart(boolean create, boolean namespace) {
    try {
      prepareSchema(create, namespace);
    } catch (StoreUnavailableException e) {
      if (create) {
        throw e;
      }
    }
  }

  /** The first call's check when the build could not reach the server; others wait for it. */
  private void checkSchemaOnce(String operation, String sessionId) {
    if (schemaChecked) {
      return;
    }
    synchronized (this) {
      if (schemaChecked || schemaChecker == Thread.currentThread()) {
        return; // checked meanwhile, or this is the check's own transaction
      }
      prepareSchema(operation, sessionId, false, false);
    }
  }

  private List<Migrations.Script> migrate(
      String operation, String sessionId, boolean create, boolean namespace) {
    return transaction(
        operation,
        sessionId,
        e -> retryable(e) || DDL_RACE.contains(state(e)),
        tx -> {
          try (PreparedStatement lock = prepare(tx.connection, sql.lockMigrations())) {
            lock.setString(1, sql.probe().ordersTable());
            lock.execute();
          }
          if (create && namespace) {
            tx.wrote = true;
            try (Statement statement = tx.connection.createStatement()) {
              statement.setQueryTimeout(queryTimeoutSeconds);
              statement.execute(sql.createNamespace());
            }
          }
          List<Migrations.Script> ran =
              Migrations.ensure(
                  tx.connection,
                  sql.probe(),
                  sql.templates(),
                  new Migrations.Origin(
                      BACKEND,
                      "postgres",
                      "store-postgres",
                      target,
                      "with your names in place of fencekit_orders and fencekit_orphans (here "
                          + sql.probe().ordersTable()
                          + " and its orphans table)"),
                  create);
          tx.wrote |= !ran.isEmpty();
          return ran;
        });
  }

  /** One statement in a transaction of its own (a read too), run again after a deadlock. */
  @Override
  protected <T> T runStatement(
      String operation,
      String sessionId,
      boolean writes,
      String statementSql,
      StatementWork<T> work) {
    return transaction(
        operation,
        sessionId,
        PostgresStorage::retryable,
        tx -> {
          tx.wrote = writes;
          try (PreparedStatement statement = prepare(tx.connection, statementSql)) {
            return work.run(statement);
          }
        });
  }

  @Override
  public <T> T atomically(String operation, String sessionId, Work<T> work) {
    return transaction(
        operation,
        sessionId,
        PostgresStorage::retryable,
        tx -> {
          PostgresLockedOrder order = new PostgresLockedOrder(tx, sessionId);
          try {
            return work.run(order);
          } catch (JdbcFailure failure) {
            throw failure.getCause();
          } finally {
            tx.wrote |= order.wrote();
          }
        });
  }

  /**
   * The fast path's first claim: insert-order.sql alone, in auto-commit.
   *
   * @param created the record the state machine builds for a first claim
   * @return whether it was inserted; {@code false} if the order exists (or a concurrent first claim
   *     created it, or the server rolled the statement back with 40001 or 40P01): the caller then
   *     decides in a transaction
   */
  boolean insertFast(OrderRecord created) {
    return single(
        "claim",
        created.sessionId(),
        sql.insertOrder(),
        statement -> {
          OrderRows.bindOrder(statement, 1, created);
          return statement.executeUpdate() == 1;
        },
        false);
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
            statement.setString(1, complete.item().providerOrderId());
            statement.setString(2, complete.item().payload());
            statement.setLong(3, claimId.fence());
            statement.setString(4, claimId.nonce());
            statement.setLong(5, now.toEpochMilli());
            bindToken(statement, 6, request);
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
   * The single-statement re-claim (reclaim-fast.sql): claims an order that exists where it is not
   * provisioned and holds no live lease at {@code now}; one statement in auto-commit.
   *
   * @param nonce the new claim's nonce
   * @param now the call's time, at millisecond precision
   * @param expires the new lease's end
   * @return the row as written, or empty if the statement wrote nothing (provisioned, in flight,
   *     unknown order, or the server rolled the statement back with 40001 or 40P01)
   */
  Optional<OrderRecord> reclaimFast(String sessionId, String nonce, Instant now, Instant expires) {
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
          return OrderRows.orderIfAny(statement);
        },
        Optional.empty());
  }

  /**
   * The order as last committed, read in auto-commit without its row lock (select-order.sql): how
   * the fast path answers a claim its re-claim did not write, where the state machine writes
   * nothing for it.
   *
   * @return the order, or empty if there is none (or the server rolled the statement back with
   *     40001 or 40P01): the caller then decides in a transaction
   */
  Optional<OrderRecord> readFast(String operation, String sessionId) {
    return single(
        operation,
        sessionId,
        sql.selectOrder(),
        statement -> {
          statement.setString(1, sessionId);
          return OrderRows.orderIfAny(statement);
        },
        Optional.empty(),
        false);
  }

  /** Binds session_id, then the token's fence and nonce, from {@code index} on. */
  private static void bindToken(PreparedStatement statement, int index, WriteRequest request)
      throws SQLException {
    statement.setString(index, request.sessionId());
    statement.setLong(index + 1, request.claimId().fence());
    statement.setString(index + 2, request.claimId().nonce());
  }

  /**
   * Runs one statement in auto-commit, so that it is one round trip with no BEGIN or COMMIT: the
   * server commits it as it ends. The connection goes back with the auto-commit setting it was lent
   * with.
   *
   * <p>A 40001 or 40P01 (possible at REPEATABLE READ or SERIALIZABLE, where a row changed since the
   * statement's snapshot cannot be updated) means the server rolled the statement back: the result
   * is {@code nothing}, as for a statement that matched nothing. Any other failure is a {@link
   * StoreUnavailableException}, whose outcome is unknown when the statement had been sent and the
   * server did not answer it with an error (an error answer means it was rolled back).
   *
   * @param nothing the result that means "wrote nothing"
   */
  private <T> T single(
      String operation, String sessionId, String statementSql, StatementWork<T> work, T nothing) {
    return single(operation, sessionId, statementSql, work, nothing, true);
  }

  /**
   * {@link #single(String, String, String, StatementWork, Object)}, for a statement that may write
   * ({@code writes}: its outcome can be unknown) or one that only reads (never unknown).
   */
  private <T> T single(
      String operation,
      String sessionId,
      String statementSql,
      StatementWork<T> work,
      T nothing,
      boolean writes) {
    requireOpen(operation, sessionId);
    Connection connection;
    try {
      connection = dataSource.getConnection();
    } catch (SQLException e) {
      throw unavailable(operation, sessionId, false, e, 1);
    }
    boolean restoreAutoCommit = false;
    boolean executing = false;
    try {
      if (!connection.getAutoCommit()) {
        connection.setAutoCommit(true); // no round trip: nothing is open on a connection just lent
        restoreAutoCommit = true;
      }
      try (PreparedStatement statement = prepare(connection, statementSql)) {
        executing = true; // binding sends nothing, but tell no lie if a driver does
        return work.run(statement);
      }
    } catch (SQLException e) {
      if (retryable(e)) {
        return nothing;
      }
      throw unavailable(operation, sessionId, writes && executing && !answeredWithError(e), e, 1);
    } finally {
      try {
        if (restoreAutoCommit) {
          connection.setAutoCommit(false);
        }
      } catch (SQLException | RuntimeException e) {
        // a broken connection: closing it below is all that is left to do
      }
      try {
        connection.close();
      } catch (SQLException | RuntimeException e) {
        // a pool evicts a connection it cannot reset
      }
    }
  }

  /**
   * Whether the server answered the statement with an error, which in auto-commit means it rolled
   * the statement back; a lost connection (class 08, no SQLState) or a terminated backend (57P0x)
   * leaves it unknown whether the statement committed before the answer was lost.
   */
  private static boolean answeredWithError(SQLException e) {
    String state = state(e);
    return !state.isEmpty()
        && !state.startsWith("08")
        && !state.startsWith("57P")
        && !(e instanceof SQLTransientConnectionException)
        && !(e instanceof SQLNonTransientConnectionException)
        && !(e instanceof SQLRecoverableException);
  }

  private void requireOpen(String operation, String sessionId) {
    if (closed.get()) {
      throw Validate.storeClosed("postgres store", operation, sessionId);
    }
    checkSchemaOnce(operation, sessionId);
  }

  @Override
  public void close() {
    if (closed.compareAndSet(false, true) && ownedPool != null) {
      try {
        ownedPool.close();
      } catch (Exception e) {
        throw new IllegalStateException(
            "postgres store: closing the connection pool for "
                + target
                + " failed: "
                + credentials.mask(String.valueOf(e.getMessage())),
            e);
      }
    }
  }

  /**
   * Runs {@code work} in one transaction and commits it, running it again from the start after a
   * failure {@code retryOn} accepts (the server rolled the transaction back).
   */
  private <T> T transaction(
      String operation, String sessionId, Predicate<SQLException> retryOn, TxWork<T> work) {
    requireOpen(operation, sessionId);
    for (int attempt = 1; ; attempt++) {
      Tx tx = connect(operation, sessionId);
      Connection connection = tx.connection;
      boolean committing = false;
      try {
        T result = work.run(tx);
        committing = true;
        connection.commit();
        return result;
      } catch (SQLException e) {
        rollbackQuietly(connection, e);
        boolean again = retryOn.test(e);
        if (again && attempt < MAX_ATTEMPTS) {
          retries.incrementAndGet();
          backoff(operation, sessionId, attempt, e);
          continue;
        }
        // Before COMMIT was sent the server cannot have kept anything; a failed COMMIT of a
        // transaction that wrote may have landed, unless the server said it rolled it back.
        throw unavailable(operation, sessionId, committing && tx.wrote && !again, e, attempt);
      } catch (RuntimeException | Error e) {
        rollbackQuietly(connection, e);
        throw e;
      } finally {
        release(tx);
      }
    }
  }

  /** Borrows a connection and turns off auto-commit (a client-side flag, no session state). */
  private Tx connect(String operation, String sessionId) {
    Connection connection;
    try {
      connection = dataSource.getConnection();
    } catch (SQLException e) {
      throw unavailable(operation, sessionId, false, e, 1);
    }
    try {
      Tx tx = new Tx(connection, connection.getAutoCommit());
      if (tx.restoreAutoCommit) {
        connection.setAutoCommit(false);
      }
      return tx;
    } catch (SQLException e) {
      closeQuietly(connection, e);
      throw unavailable(operation, sessionId, false, e, 1);
    } catch (RuntimeException e) {
      closeQuietly(connection, e);
      throw e;
    }
  }

  /** Returns the connection as it was lent; the transaction is over either way. */
  private static void release(Tx tx) {
    try {
      if (tx.restoreAutoCommit) {
        tx.connection.setAutoCommit(true);
      }
    } catch (SQLException | RuntimeException e) {
      // a broken connection: closing it below is all that is left to do
    }
    try {
      tx.connection.close();
    } catch (SQLException | RuntimeException e) {
      // a pool evicts a connection it cannot reset
    }
  }

  private static void rollbackQuietly(Connection connection, Throwable failure) {
    try {
      connection.rollback();
    } catch (SQLException | RuntimeException e) {
      failure.addSuppressed(e);
    }
  }

  private static void closeQuietly(Connection connection, Throwable failure) {
    try {
      connection.close();
    } catch (SQLException | RuntimeException e) {
      failure.addSuppressed(e);
    }
  }

  private void backoff(String operation, String sessionId, int attempt, SQLException cause) {
    long millis = ThreadLocalRandom.current().nextLong(1, 2L << Math.min(attempt, 5));
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      StoreUnavailableException failure =
          new StoreUnavailableException(
              BACKEND,
              operation,
              sessionId,
              false,
              "interrupted while waiting to run the transaction again after SQLState "
                  + cause.getSQLState()
                  + " (the server had rolled it back)",
              cause);
      failure.addSuppressed(e);
      throw failure;
    }
  }

  private PreparedStatement prepare(Connection connection, String statementSql)
      throws SQLException {
    PreparedStatement statement = connection.prepareStatement(statementSql);
    try {
      statement.setQueryTimeout(queryTimeoutSeconds);
      return statement;
    } catch (SQLException | RuntimeException e) {
      try {
        statement.close();
      } catch (SQLException closing) {
        e.addSuppressed(closing);
      }
      throw e;
    }
  }

  static boolean retryable(SQLException e) {
    return RETRYABLE.contains(state(e));
  }

  /** The SQLState, or "" when the driver or the pool gave none. */
  private static String state(SQLException e) {
    return e.getSQLState() == null ? "" : e.getSQLState();
  }

  private StoreUnavailableException unavailable(
      String operation, String sessionId, boolean outcomeUnknown, SQLException e, int attempts) {
    String detail = credentials.mask(describe(e)) + "; " + remedy(e, attempts);
    return new StoreUnavailableException(BACKEND, operation, sessionId, outcomeUnknown, detail, e);
  }

  private static String describe(SQLException e) {
    StringBuilder text =
        new StringBuilder(e.getSQLState() == null ? "no SQLState" : "SQLState " + e.getSQLState())
            .append(": ")
            .append(e.getMessage());
    Throwable cause = e.getCause();
    for (int depth = 0; cause != null && depth < 3; depth++, cause = cause.getCause()) {
      if (cause.getMessage() != null && !text.toString().contains(cause.getMessage())) {
        text.append(" (caused by ").append(cause.getMessage()).append(')');
      }
    }
    return text.toString();
  }

  private String remedy(SQLException e, int attempts) {
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
        || e instanceof SQLTransientConnectionException
        || e instanceof SQLNonTransientConnectionException
        || e instanceof SQLRecoverableException) {
      return "check that PostgreSQL is up and reachable at "
          + target
          + ", and that the pool has connections to spare for the callers waiting";
    }
    if (state.equals("57014") || state.equals("55P03")) {
      return "a statement waited longer than the query timeout ("
          + queryTimeoutSeconds
          + " s) or was cancelled: look in pg_stat_activity for a transaction holding this"
          + " order's row lock, or raise queryTimeout";
    }
    if (state.equals("42P01") || state.equals("3F000")) {
      return "the fencekit tables do not exist at "
          + target
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

  /** Work inside {@link #transaction}, on its connection. */
  @FunctionalInterface
  private interface TxWork<T> {
    T run(Tx tx) throws SQLException;
  }

  /** One transaction: its connection, and whether a statement in it changed a row. */
  private static final class Tx {
    final Connection connection;

    /** The connection was lent in auto-commit mode and goes back in it. */
    final boolean restoreAutoCommit;

    boolean wrote;

    Tx(Connection connection, boolean restoreAutoCommit) {
      this.connection = connection;
      this.restoreAutoCommit = restoreAutoCommit;
    }
  }

  /** One order inside a locking transaction: its row is locked by the first read. */
  private final class PostgresLockedOrder extends JdbcLockedOrder {

    private final Tx tx;
    private Instant serverNow;

    PostgresLockedOrder(Tx tx, String sessionId) {
      super(BACKEND, target, sessionId, sql.forSteps(serverTime));
      this.tx = tx;
    }

    @Override
    protected OrderRecord readCurrent(PreparedStatement statement) throws SQLException {
      if (!serverTime) {
        return super.readCurrent(statement);
      }
      try (ResultSet rows = statement.executeQuery()) {
        if (!rows.next()) {
          throw new SQLException("lock-order-server-time.sql returned no row", "XX000");
        }
        serverNow = Instant.ofEpochMilli(rows.getLong("server_now_ms"));
        return rows.getString(1) == null ? null : OrderRows.order(rows);
      }
    }

    @Override
    public Optional<Instant> now() {
      if (serverTime) {
        current(); // the time comes with the locking read
      }
      return Optional.ofNullable(serverNow);
    }

    @Override
    protected PreparedStatement prepare(String statementSql) throws SQLException {
      return PostgresStorage.this.prepare(tx.connection, statementSql);
    }

    @Override
    protected void release(PreparedStatement statement) throws SQLException {
      statement.close();
    }
  }
}
