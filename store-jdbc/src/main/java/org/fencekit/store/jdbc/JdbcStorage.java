package org.fencekit.store.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTransientConnectionException;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import javax.sql.DataSource;
import org.fencekit.store.OrderRecord;
import org.fencekit.store.StoreUnavailableException;
import org.fencekit.store.spi.Credentials;
import org.fencekit.store.spi.Validate;
import org.fencekit.store.spi.WriteRequest;

/**
 * The {@link org.fencekit.store.spi.Storage} of a SQL store whose server locks rows (PostgreSQL,
 * MySQL): each atomic step is one transaction on one connection borrowed from a {@link DataSource},
 * whose first statement locks the order's row ({@link JdbcLockedOrder}, with the dialect's {@code
 * SELECT ... FOR UPDATE}); single statements run in auto-commit ({@link #single}); the reads and
 * the admin queries ({@link JdbcAdminStorage}) run as one statement in a transaction each. At start
 * the schema version is checked, and brought up to date when the store may ({@link #migrate}).
 *
 * <p>A transaction the server rolled back ({@link #retryable}: a deadlock, a serialization failure,
 * a lock wait timeout) is run again from the start, at most {@value #MAX_ATTEMPTS} times in all.
 * Any other {@link SQLException} becomes a {@link StoreUnavailableException}, whose outcome is
 * unknown only when the failure came from a COMMIT of a transaction that had written, or from a
 * single statement the server did not answer with an error ({@link #answeredWithError}). A dialect
 * gives those two judgements, its remedies, its migration and its locked order; this class is the
 * rest.
 */
public abstract class JdbcStorage extends JdbcAdminStorage {

  /** Runs of one transaction the server rolled back before giving up. */
  public static final int MAX_ATTEMPTS = 10;

  private final String backend;
  private final DataSource dataSource;
  private final AutoCloseable ownedPool;
  private final int queryTimeoutSeconds;
  private final String target;
  private final Credentials credentials;
  private final AtomicBoolean closed = new AtomicBoolean();

  /** The single statements' deadlines, or null where the driver's query timeout keeps them. */
  private final StatementDeadlines deadlines;

  private final AtomicLong retries = new AtomicLong();

  /** Whether the schema version was found right; false until a build or first call checked it. */
  private volatile boolean schemaChecked;

  /** The thread running the first call's check, guarded by this storage's monitor. */
  private Thread schemaChecker;

  /**
   * Where a storage connects, and how.
   *
   * @param backend the store's name for messages: "postgres", "mysql"
   * @param dataSource where connections come from
   * @param ownedPool the pool to close with the storage (the store built it), or {@code null}
   * @param queryTimeoutSeconds the JDBC query timeout of every statement, at least 1
   * @param target where the data lives, for messages, without credentials
   * @param credentials what must never appear in a message
   */
  public record Connections(
      String backend,
      DataSource dataSource,
      AutoCloseable ownedPool,
      int queryTimeoutSeconds,
      String target,
      Credentials credentials) {}

  /**
   * @param connections where and how the storage connects
   * @param selectOrder select-order.sql for the store's tables
   * @param selectOrphans select-orphans.sql for the store's tables
   * @param admin the admin statements for the store's tables
   * @param ownDeadlines whether the single statements' query timeout is kept by a thread of the
   *     storage's own ({@link StatementDeadlines}) rather than the driver's timer task per
   *     statement; only for a driver whose cancel interrupts a statement only while it executes
   *     (pgjdbc, and Connector/J on a server that forgets a KILL QUERY reaching an idle session)
   */
  protected JdbcStorage(
      Connections connections,
      String selectOrder,
      String selectOrphans,
      AdminStatements admin,
      boolean ownDeadlines) {
    super(selectOrder, selectOrphans, admin);
    this.backend = connections.backend();
    this.dataSource = connections.dataSource();
    this.ownedPool = connections.ownedPool();
    this.queryTimeoutSeconds = connections.queryTimeoutSeconds();
    this.target = connections.target();
    this.credentials = connections.credentials();
    this.deadlines =
        ownDeadlines
            ? new StatementDeadlines(connections.backend(), connections.queryTimeoutSeconds())
            : null;
  }

  /**
   * Whether the server rolled the failed statement's transaction back (or, in auto-commit, the
   * statement), so running it again from the start is safe.
   */
  protected abstract boolean retryable(SQLException e);

  /**
   * Whether the server answered the statement with an error, which in auto-commit means it rolled
   * the statement back; a lost or killed connection leaves it unknown whether it committed.
   */
  protected abstract boolean answeredWithError(SQLException e);

  /** What to do about {@code e}, for the message, after {@code attempts} runs. */
  protected abstract String remedy(SQLException e, int attempts);

  /**
   * Checks the schema version (and with {@code create} brings it up to date) in one {@link
   * #transaction} that keeps other stores starting at once from doing the same.
   *
   * @param namespace whether the store is configured with a namespace to create
   * @return the scripts run
   */
  protected abstract List<Migrations.Script> migrate(
      String operation, String sessionId, boolean create, boolean namespace);

  /**
   * Whether {@code e} is the server's duplicate key error for an insert that found its row, which
   * undoes that statement only. None by default: a dialect whose inserts say {@code ON CONFLICT DO
   * NOTHING} inserts nothing instead.
   */
  protected boolean duplicateKey(SQLException e) {
    return false;
  }

  /**
   * A fast path's complete with nothing sent back: {@code completeSql}, the dialect's conditional
   * complete, alone in auto-commit. For a claim the store granted itself ({@link
   * org.fencekit.store.spi.HeldClaims}) the answer is then the state machine's write on the record
   * the claim left, with no row sent back or read.
   *
   * @param completeSql the dialect's complete-fast.sql without a {@code RETURNING} clause, bound by
   *     {@link FastSettle#bindComplete}
   * @return whether it wrote (the token was the order's current claim and not the one that settled
   *     it); {@code false} if it wrote nothing (superseded, replay, or rolled back: {@link
   *     #retryable}), and the caller then decides in a transaction
   */
  protected boolean completeAlone(String completeSql, WriteRequest.Complete complete, Instant now) {
    return single(
        "complete",
        complete.sessionId(),
        completeSql,
        statement -> {
          FastSettle.bindComplete(statement, complete, now);
          return statement.executeUpdate() == 1;
        },
        false,
        true);
  }

  /**
   * A fast path's first claim: {@code insertOrder} (insert-order.sql) alone, in auto-commit.
   *
   * @param created the record the state machine builds for a first claim
   * @return whether it was inserted; {@code false} if the order exists (or a concurrent first claim
   *     created it, or the server rolled the statement back, {@link #retryable}): the caller then
   *     decides in a transaction
   */
  protected boolean insertFast(String insertOrder, OrderRecord created) {
    return single(
        "claim",
        created.sessionId(),
        insertOrder,
        statement -> {
          OrderRows.bindOrder(statement, 1, created);
          try {
            return statement.executeUpdate() == 1;
          } catch (SQLException e) {
            if (duplicateKey(e)) {
              return false;
            }
            throw e;
          }
        },
        false,
        true);
  }

  /**
   * The order's row, read by select-order.sql alone in auto-commit: one round trip, where {@link
   * #read}'s transaction adds its end (and, where the driver sends them, {@code SET autocommit} and
   * the dialect's {@link #beginning}). A single consistent read needs no transaction.
   *
   * @param operation the call, for messages
   * @throws IllegalStateException if the server rolled the read back ({@link #retryable})
   */
  protected Optional<OrderRecord> readAlone(String operation, String sessionId) {
    Optional<OrderRecord> row =
        single(
            operation,
            sessionId,
            selectOrder(),
            statement -> {
              statement.setString(1, sessionId);
              return OrderRows.orderIfAny(statement);
            },
            null,
            false);
    if (row == null) {
      throw new IllegalStateException("the server rolled the read back (" + backend + ")");
    }
    return row;
  }

  /**
   * Where this store's migrations report from: its scripts in {@code
   * db/migration/fencekit/<backend>} of the jar {@code store-<backend>}.
   *
   * @param ordersTable the orders table as the store names it, for the messages
   */
  protected Migrations.Origin origin(String ordersTable) {
    return new Migrations.Origin(
        backend,
        backend,
        "store-" + backend,
        target,
        "with your names in place of fencekit_orders and fencekit_orphans (here "
            + ordersTable
            + " and its orphans table)");
  }

  /** The order of an atomic step on {@code tx}'s connection. */
  protected abstract JdbcLockedOrder lockedOrder(Tx tx, String sessionId);

  @Override
  public String backend() {
    return backend;
  }

  /** The connections' source. */
  public DataSource dataSource() {
    return dataSource;
  }

  /** Where the data lives, without credentials. */
  public String target() {
    return target;
  }

  /** The JDBC query timeout of every statement, in seconds. */
  protected int queryTimeoutSeconds() {
    return queryTimeoutSeconds;
  }

  /** How many transactions were run again after the server rolled them back. */
  public long retries() {
    return retries.get();
  }

  /**
   * Checks the schema version, and with {@code create} runs the missing scripts ({@link #migrate}).
   *
   * @throws IllegalStateException if the schema is newer, or older and {@code create} is false
   */
  public List<Migrations.Script> prepareSchema(boolean create, boolean namespace) {
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
   * yet is built all the same, unless {@code requireServer}: its first call checks instead, so it
   * starts working when the server comes back. A check that fails closes this storage (and the pool
   * it built) before it throws.
   */
  public void checkSchemaAtStart(boolean create, boolean namespace, boolean requireServer) {
    try {
      prepareSchema(create, namespace);
    } catch (RuntimeException e) {
      if (create || requireServer || !(e instanceof StoreUnavailableException)) {
        close();
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

  /** One statement in a transaction of its own (a read too), run again after a rollback. */
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
        this::retryable,
        tx -> {
          tx.wrote |= writes;
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
        this::retryable,
        tx -> {
          JdbcLockedOrder order = lockedOrder(tx, sessionId);
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
   * Runs one statement in auto-commit, so that it is one round trip with no BEGIN or COMMIT: the
   * server commits it as it ends. The connection goes back with the auto-commit setting it was lent
   * with.
   *
   * <p>A {@link #retryable} failure means the server rolled the statement back: the result is
   * {@code nothing}, as for a statement that matched nothing. Any other failure is a {@link
   * StoreUnavailableException}, whose outcome is unknown when the statement may write ({@code
   * writes}), had been sent, and the server did not answer it with an error.
   *
   * @param nothing the result that means "wrote nothing"
   */
  protected <T> T single(
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
        connection.setAutoCommit(true); // nothing is open on a connection just lent
        restoreAutoCommit = true;
      }
      try (PreparedStatement statement =
          deadlines == null
              ? prepare(connection, statementSql)
              : connection.prepareStatement(statementSql)) {
        StatementDeadlines.Watch watch = deadlines == null ? null : deadlines.watch(statement);
        try {
          executing = true; // binding sends nothing, but tell no lie if a driver does
          return work.run(statement);
        } catch (SQLException e) {
          throw watch == null ? e : watch.timedOut(e);
        } finally {
          if (watch != null) {
            watch.close();
          }
        }
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

  private void requireOpen(String operation, String sessionId) {
    if (closed.get()) {
      throw Validate.storeClosed(backend + " store", operation, sessionId);
    }
    checkSchemaOnce(operation, sessionId);
  }

  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    if (deadlines != null) {
      deadlines.close();
    }
    if (ownedPool != null) {
      try {
        ownedPool.close();
      } catch (Exception e) {
        throw new IllegalStateException(
            backend
                + " store: closing the connection pool for "
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
  protected <T> T transaction(
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

  /**
   * Called on each transaction's connection once auto-commit is off, before its first statement:
   * where a store sets what its transactions need of a connection it was lent. Does nothing here.
   */
  protected void beginning(Connection connection) throws SQLException {}

  /**
   * Borrows a connection, turns off auto-commit if it was lent on (pgjdbc keeps the flag on the
   * client; Connector/J sends {@code SET autocommit}, and the opposite when it goes back) and calls
   * {@link #beginning}.
   */
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
      beginning(connection);
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
              backend,
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

  /** A statement on {@code connection} with the store's query timeout. */
  protected PreparedStatement prepare(Connection connection, String statementSql)
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

  /** The SQLState, or "" when the driver or the pool gave none. */
  protected static String state(SQLException e) {
    return e.getSQLState() == null ? "" : e.getSQLState();
  }

  /**
   * Whether the driver or the pool typed the failure as a lost or unusable connection (transient,
   * non-transient or recoverable): a statement it hit may have committed.
   */
  protected static boolean connectionFailure(SQLException e) {
    return e instanceof SQLTransientConnectionException
        || e instanceof SQLNonTransientConnectionException
        || e instanceof SQLRecoverableException;
  }

  /** The failure as the store reports it, its message masked, with the dialect's remedy. */
  protected StoreUnavailableException unavailable(
      String operation, String sessionId, boolean outcomeUnknown, SQLException e, int attempts) {
    String detail = credentials.mask(describe(e)) + "; " + remedy(e, attempts);
    return new StoreUnavailableException(backend, operation, sessionId, outcomeUnknown, detail, e);
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

  /**
   * An order inside an atomic step: its statements run on the step's connection with the store's
   * query timeout, each closed after its run. A dialect extends it with what it reads or recognises
   * differently.
   */
  protected class StepOrder extends JdbcLockedOrder {

    private final Tx tx;

    /**
     * @param tx the step's transaction
     * @param sessionId the order of the step
     * @param sql the statements an order step runs
     */
    public StepOrder(Tx tx, String sessionId, Statements sql) {
      super(backend, target, sessionId, sql);
      this.tx = tx;
    }

    @Override
    protected PreparedStatement prepare(String statementSql) throws SQLException {
      return JdbcStorage.this.prepare(tx.connection, statementSql);
    }

    @Override
    protected boolean duplicateKey(SQLException e) {
      return JdbcStorage.this.duplicateKey(e);
    }

    @Override
    protected void release(PreparedStatement statement) throws SQLException {
      statement.close();
    }
  }

  /** Work inside {@link #transaction}, on its connection. */
  @FunctionalInterface
  protected interface TxWork<T> {
    /** Runs the work in the transaction. */
    T run(Tx tx) throws SQLException;
  }

  /** One transaction: its connection, and whether a statement in it changed a row. */
  protected static final class Tx {
    private final Connection connection;

    /** The connection was lent in auto-commit mode and goes back in it. */
    private final boolean restoreAutoCommit;

    private boolean wrote;

    private Tx(Connection connection, boolean restoreAutoCommit) {
      this.connection = connection;
      this.restoreAutoCommit = restoreAutoCommit;
    }

    /** The transaction's connection. */
    public Connection connection() {
      return connection;
    }

    /** Records that a statement may have changed something, so a failed COMMIT is unknown. */
    public void wrote(boolean wrote) {
      this.wrote |= wrote;
    }
  }
}
