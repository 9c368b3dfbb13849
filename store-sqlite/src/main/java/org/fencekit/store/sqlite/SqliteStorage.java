package org.fencekit.store.sqlite;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;
import org.fencekit.store.OrderRecord;
import org.fencekit.store.StoreUnavailableException;
import org.fencekit.store.jdbc.JdbcAdminStorage;
import org.fencekit.store.jdbc.JdbcFailure;
import org.fencekit.store.jdbc.JdbcLockedOrder;
import org.fencekit.store.jdbc.Migrations;
import org.fencekit.store.jdbc.OrderRows;
import org.fencekit.store.spi.Validate;
import org.sqlite.SQLiteConfig;
import org.sqlite.SQLiteConnection;
import org.sqlite.SQLiteErrorCode;
import org.sqlite.SQLiteException;

/**
 * The {@link Storage} of {@link SqliteOrderStore}: orders in one SQLite file in WAL mode, read and
 * written through a small pool of connections. A write step is one {@code BEGIN IMMEDIATE}
 * transaction, entered while holding the file's write lock in this JVM ({@link FileLocks}); a read
 * is a single statement on any pooled connection, without the lock (WAL readers see the last commit
 * and do not block writers). Every statement, the transaction control included, is prepared once
 * per pooled connection and reused ({@link ConnectionPool.Slot#prepare}); a connection that failed
 * is reopened with fresh ones. The admin queries ({@link JdbcAdminStorage}) are single statements:
 * reads like {@code get}, and a mark under the write lock like a write step. At open, the file's
 * schema version is checked, and brought up to date when the store may ({@link
 * org.fencekit.store.jdbc.Migrations}).
 */
final class SqliteStorage extends JdbcAdminStorage {

  private static final String BACKEND = "sqlite";
  // Transaction control; IMMEDIATE takes the file's write lock before the order is read, so a
  // writer in another process waits in the busy handler instead of failing at its first write.
  private static final String BEGIN = "BEGIN IMMEDIATE";
  private static final String COMMIT = "COMMIT";
  private static final String ROLLBACK = "ROLLBACK";

  /** What {@link #open} needs, validated by the builder. */
  record Settings(
      Path file,
      String ordersTable,
      String orphansTable,
      SqliteOrderStore.Synchronous synchronous,
      int connections,
      Duration busyTimeout,
      Duration acquireTimeout,
      boolean quickCheck,
      boolean createSchema) {}

  /**
   * The settings one pooled connection runs with, as SQLite and its driver report them.
   *
   * @param journalMode {@code PRAGMA journal_mode}, "wal"
   * @param synchronous {@code PRAGMA synchronous}: 1 NORMAL, 2 FULL
   * @param busyTimeoutMillis {@code PRAGMA busy_timeout}
   * @param generatedKeys whether the driver fetches generated keys after each INSERT (it runs
   *     {@code SELECT last_insert_rowid()} on a statement of its own), which the store never reads
   */
  record ConnectionSettings(
      String journalMode, int synchronous, long busyTimeoutMillis, boolean generatedKeys) {}

  private final Settings settings;
  private final Statements sql;
  private final ConnectionPool pool;
  private final Path realFile;
  private final Object fileKey;
  private final ReentrantLock writeLock;
  private final AtomicBoolean closed = new AtomicBoolean();

  private SqliteStorage(
      Settings settings, Statements sql, Path realFile, Object fileKey, ReentrantLock writeLock) {
    super(sql.selectOrder(), sql.selectOrphans(), sql.admin());
    this.settings = settings;
    this.sql = sql;
    this.pool =
        new ConnectionPool(
            settings.connections(), () -> openConnection(settings), closedMessage(settings));
    this.realFile = realFile;
    this.fileKey = fileKey;
    this.writeLock = writeLock;
  }

  /**
   * Opens the file (creating it if missing), switches it to WAL, creates the tables if missing and
   * checks that existing ones have the columns the statements need, then opens the pool.
   *
   * @throws StoreUnavailableException if the file cannot be opened or written
   * @throws IllegalStateException if a table of that name exists with another shape, or the file
   *     system cannot do WAL
   */
  static SqliteStorage open(Settings settings) {
    Statements sql = Statements.forTables(settings.ordersTable(), settings.orphansTable());
    Connection first;
    try {
      first = openConnection(settings);
    } catch (SQLException e) {
      throw unavailable(settings, "open", null, false, "could not open the database", e);
    }
    Path realFile;
    Object fileKey;
    try {
      realFile = settings.file().toRealPath();
      fileKey = fileKey(realFile);
    } catch (IOException e) {
      closeQuietly(first);
      String message = "could not resolve the real path of %s (%s)".formatted(settings.file(), e);
      throw failed("open", null, false, message, e);
    }
    ReentrantLock writeLock = FileLocks.acquire(realFile);
    boolean opened = false;
    writeLock.lock();
    try {
      if (settings.quickCheck()) {
        quickCheck(settings, first);
      }
      createSchema(settings, sql, first);
      checkWritable(settings, first);
      SqliteStorage storage = new SqliteStorage(settings, sql, realFile, fileKey, writeLock);
      storage.openAll(first);
      opened = true;
      return storage;
    } finally {
      writeLock.unlock();
      if (!opened) {
        closeQuietly(first);
        FileLocks.release(realFile);
      }
    }
  }

  /** Fills the pool with open connections, the first one being {@code first}. */
  private void openAll(Connection first) {
    List<ConnectionPool.Slot> taken = new ArrayList<>();
    try {
      while (taken.size() < pool.size()) {
        taken.add(pool.take(Duration.ZERO));
      }
    } catch (InterruptedException e) {
      taken.forEach(slot -> pool.give(slot, true));
      pool.close();
      throw interrupted("open", null, "opening connections", e);
    } catch (SQLException e) {
      taken.forEach(slot -> pool.give(slot, true));
      pool.close();
      throw unavailable(settings, "open", null, false, "could not open a pooled connection", e);
    }
    taken.forEach(slot -> pool.give(slot, true));
    closeQuietly(first);
  }

  private static Connection openConnection(Settings settings) throws SQLException {
    SQLiteConfig config = new SQLiteConfig();
    config.setBusyTimeout(Math.toIntExact(settings.busyTimeout().toMillis()));
    config.setSynchronous(
        settings.synchronous() == SqliteOrderStore.Synchronous.FULL
            ? SQLiteConfig.SynchronousMode.FULL
            : SQLiteConfig.SynchronousMode.NORMAL);
    // the store reads no generated key; with them on, the driver matches every statement's text
    // against a pattern and runs SELECT last_insert_rowid() on a new statement after each INSERT
    config.setGetGeneratedKeys(false);
    Connection connection = config.createConnection("jdbc:sqlite:" + settings.file());
    try (Statement statement = connection.createStatement()) {
      String mode = pragma(statement, "PRAGMA journal_mode = WAL");
      if (!"wal".equalsIgnoreCase(mode)) {
        throw new IllegalStateException(
            ("sqlite store: %s is in journal mode '%s' and could not be switched to WAL, which the"
                    + " store needs to read while another connection writes; put the file on a"
                    + " local file system (WAL does not work over a network file system)")
                .formatted(settings.file(), mode));
      }
      return connection;
    } catch (SQLException | RuntimeException e) {
      closeQuietly(connection);
      throw e;
    }
  }

  /** Refuses a damaged file: {@code PRAGMA quick_check} must answer "ok". */
  private static void quickCheck(Settings settings, Connection connection) {
    List<String> found = new ArrayList<>();
    try (Statement statement = connection.createStatement();
        ResultSet rows = statement.executeQuery("PRAGMA quick_check")) {
      while (rows.next() && found.size() < 3) {
        found.add(rows.getString(1));
      }
    } catch (SQLException e) {
      found.add(String.valueOf(e.getMessage()));
    }
    if (!found.equals(List.of("ok"))) {
      String message =
          ("PRAGMA quick_check found %s damaged (%s); restore it from a backup, or build with"
                  + " quickCheck(false) to open it anyway")
              .formatted(settings.file(), String.join("; ", found));
      throw failed("open", null, false, message, null);
    }
  }

  /**
   * Refuses a file this process cannot write (SQLite opens it read-only without saying so, and the
   * first write would fail): a write transaction that sets the header's user_version to its own
   * value, rolled back.
   */
  private static void checkWritable(Settings settings, Connection connection) {
    try (Statement statement = connection.createStatement()) {
      String version = pragma(statement, "PRAGMA user_version");
      statement.execute(BEGIN);
      try {
        statement.execute("PRAGMA user_version = " + version);
      } finally {
        statement.execute(ROLLBACK);
      }
    } catch (SQLException e) {
      throw unavailable(settings, "open", null, false, "could not write the file", e);
    }
  }

  /**
   * Checks the file's schema version in one {@code BEGIN IMMEDIATE} transaction (so two processes
   * opening an old file cannot both upgrade it) and runs the missing scripts if the store may.
   */
  private static void createSchema(Settings settings, Statements sql, Connection connection) {
    try (Statement statement = connection.createStatement()) {
      statement.execute(BEGIN);
      try {
        Migrations.ensure(
            connection,
            sql.probe(),
            sql.templates(),
            new Migrations.Origin(
                BACKEND,
                "sqlite",
                "store-sqlite",
                settings.file().toString(),
                "with the tables '%s' and '%s' in place of fencekit_orders and fencekit_orphans"
                    .formatted(settings.ordersTable(), settings.orphansTable())),
            settings.createSchema());
        statement.execute(COMMIT);
      } catch (SQLException | RuntimeException e) {
        statement.execute(ROLLBACK);
        throw e;
      }
    } catch (SQLException e) {
      throw unavailable(
          settings, "open", null, false, "could not check or upgrade the schema version", e);
    }
    for (String query : sql.queries()) {
      try (PreparedStatement statement = connection.prepareStatement(query)) {
        if (query.equals(sql.selectOrder())) {
          OrderRows.checkColumns(
              statement.getMetaData(), OrderRows.ORDER_COLUMNS, "store-sqlite: select-order.sql");
        }
      } catch (SQLException e) {
        String message =
            ("sqlite store: the tables '%s' and '%s' in %s exist but do not have the columns this"
                    + " store needs (%s); choose other table names with ordersTable(...) and"
                    + " orphansTable(...), or move the existing tables away")
                .formatted(
                    settings.ordersTable(),
                    settings.orphansTable(),
                    settings.file(),
                    e.getMessage());
        throw new IllegalStateException(message, e);
      }
    }
  }

  @Override
  public String backend() {
    return BACKEND;
  }

  /**
   * Runs {@code work} in one {@code BEGIN IMMEDIATE} transaction, holding this JVM's write lock on
   * the file; commits if it returns, rolls back if it throws.
   *
   * @throws StoreUnavailableException if SQLite fails; {@link
   *     StoreUnavailableException#outcomeUnknown} is true when the failure came at or after COMMIT,
   *     or the rollback failed too
   * @throws IllegalStateException if the store is closed
   */
  @Override
  public <T> T atomically(String operation, String sessionId, Work<T> work) {
    checkOpen();
    lockWrites(operation, sessionId);
    try {
      ConnectionPool.Slot slot = take(operation, sessionId);
      boolean healthy = false;
      try {
        T result = transaction(slot, operation, sessionId, work);
        healthy = true;
        return result;
      } catch (RuntimeException | Error e) {
        // the work's own exception, rolled back cleanly; a SQLite failure discards the connection
        healthy = !(e instanceof StoreUnavailableException);
        throw e;
      } finally {
        pool.give(slot, healthy);
      }
    } finally {
      writeLock.unlock();
    }
  }

  private <T> T transaction(
      ConnectionPool.Slot slot, String operation, String sessionId, Work<T> work) {
    try {
      slot.prepare(BEGIN).execute();
    } catch (SQLException e) {
      throw unavailable(
          settings,
          operation,
          sessionId,
          false,
          "could not begin the write transaction (BEGIN IMMEDIATE)",
          e);
    }
    T result;
    try {
      result = work.run(new SqliteLockedOrder(slot, sessionId));
    } catch (JdbcFailure failure) {
      boolean rolledBack = rollback(slot, failure.getCause()) == null;
      String what =
          "a statement failed inside the transaction"
              + (rolledBack ? ", which was rolled back" : " and the rollback failed too");
      throw unavailable(settings, operation, sessionId, !rolledBack, what, failure.getCause());
    } catch (RuntimeException | Error e) {
      if (rollback(slot, e) != null) {
        String message =
            "the transaction on %s could not be rolled back after %s".formatted(settings.file(), e);
        throw failed(operation, sessionId, true, message, e);
      }
      throw e;
    }
    try {
      slot.prepare(COMMIT).execute();
    } catch (SQLException e) {
      boolean nothingWritten = commitRolledBack(slot, e);
      String what =
          nothingWritten
              ? "the commit failed and SQLite rolled the transaction back"
              : "the commit failed";
      throw unavailable(settings, operation, sessionId, !nothingWritten, what, e);
    }
    return result;
  }

  /**
   * After a failed COMMIT: whether it is certain that nothing landed. True when the error is one
   * after which SQLite either keeps the transaction open (it is then rolled back here) or has
   * rolled it back itself (ROLLBACK then finds no transaction), and never for an I/O error or
   * damage, after which the commit's WAL frames may be on disk.
   */
  private static boolean commitRolledBack(ConnectionPool.Slot slot, SQLException commitFailure) {
    SQLiteErrorCode code = primaryCode(commitFailure);
    boolean refusedCommit =
        code == SQLiteErrorCode.SQLITE_FULL
            || code == SQLiteErrorCode.SQLITE_BUSY
            || code == SQLiteErrorCode.SQLITE_LOCKED
            || code == SQLiteErrorCode.SQLITE_NOMEM
            || code == SQLiteErrorCode.SQLITE_READONLY
            || code == SQLiteErrorCode.SQLITE_CONSTRAINT;
    SQLException rollback = rollback(slot, commitFailure);
    // no failure: the transaction was still open, and is rolled back now; "cannot rollback - no
    // transaction is active": SQLite ended it, and COMMIT said it failed
    return refusedCommit
        && (rollback == null || String.valueOf(rollback.getMessage()).contains("no transaction"));
  }

  private static SQLiteErrorCode primaryCode(SQLException e) {
    if (e instanceof SQLiteException sqlite && sqlite.getResultCode() != null) {
      return SQLiteErrorCode.getErrorCode(sqlite.getResultCode().code & 0xff);
    }
    return SQLiteErrorCode.UNKNOWN_ERROR;
  }

  /** Rolls back; returns {@code null}, or the failure, added to {@code cause}. */
  private static SQLException rollback(ConnectionPool.Slot slot, Throwable cause) {
    try {
      slot.prepare(ROLLBACK).execute();
      return null;
    } catch (SQLException e) {
      cause.addSuppressed(e);
      return e;
    }
  }

  /**
   * A read on a pooled connection (its statement is kept for reuse: closing the result set resets
   * it, so it holds no read snapshot once returned); a write also under this JVM's write lock on
   * the file.
   */
  @Override
  protected <T> T runStatement(
      String operation,
      String sessionId,
      boolean writes,
      String statementSql,
      StatementWork<T> work) {
    checkOpen();
    if (writes) {
      lockWrites(operation, sessionId);
    }
    try {
      ConnectionPool.Slot slot = take(operation, sessionId);
      boolean healthy = false;
      try {
        T result = work.run(slot.prepare(statementSql));
        healthy = true;
        return result;
      } catch (SQLException e) {
        // one statement in auto-commit: SQLite rolled a write back unless it failed at commit
        String failed = writes ? "the write failed" : "the read failed";
        throw unavailable(settings, operation, sessionId, writes, failed, e);
      } finally {
        pool.give(slot, healthy);
      }
    } finally {
      if (writes) {
        writeLock.unlock();
      }
    }
  }

  /** Closes every connection (busy ones when their operation ends). Idempotent. */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    // Wait for the write in flight, so a store opened on the file next never meets it in the
    // busy handler after this store has given up the file's lock.
    writeLock.lock();
    try {
      pool.close();
    } finally {
      writeLock.unlock();
      FileLocks.release(realFile);
    }
  }

  /** The settings of every pooled connection, as SQLite and its driver report them (for tests). */
  List<ConnectionSettings> connectionSettings() {
    try {
      return onEveryConnection(
          "connectionSettings",
          slot -> {
            try (Statement statement = slot.connection().createStatement()) {
              return new ConnectionSettings(
                  pragma(statement, "PRAGMA journal_mode"),
                  Integer.parseInt(pragma(statement, "PRAGMA synchronous")),
                  Long.parseLong(pragma(statement, "PRAGMA busy_timeout")),
                  slot.connection()
                      .unwrap(SQLiteConnection.class)
                      .getConnectionConfig()
                      .isGetGeneratedKeys());
            }
          });
    } catch (SQLException e) {
      throw unavailable(
          settings, "connectionSettings", null, false, "could not read the pragmas", e);
    }
  }

  /**
   * How one pooled connection has been used (for tests).
   *
   * @param opens how many times a connection was opened in its place in the pool
   * @param prepares how many statements were prepared on the connection open now
   */
  record ConnectionUse(int opens, int prepares) {}

  /** How each pooled connection has been used, taking every one in turn (for tests). */
  List<ConnectionUse> connectionUse() {
    return onEveryConnection(
        "connectionUse", slot -> new ConnectionUse(slot.opens(), slot.prepares()));
  }

  /**
   * Closes every pooled connection behind the pool's back, as a failure would, leaving the
   * statements prepared on them in place (for tests).
   */
  void breakConnections() throws SQLException {
    onEveryConnection(
        "breakConnections",
        slot -> {
          slot.connection().close();
          return null;
        });
  }

  /** Work on one pooled connection, which may throw {@code E}. */
  @FunctionalInterface
  private interface SlotWork<T, E extends Exception> {
    T run(ConnectionPool.Slot slot) throws E;
  }

  /**
   * Runs {@code work} on every pooled connection in turn, each one kept taken until all are done
   * and then given back healthy (for tests).
   */
  private <T, E extends Exception> List<T> onEveryConnection(String operation, SlotWork<T, E> work)
      throws E {
    checkOpen();
    List<ConnectionPool.Slot> taken = new ArrayList<>();
    try {
      List<T> all = new ArrayList<>();
      while (taken.size() < pool.size()) {
        ConnectionPool.Slot slot = take(operation, null);
        taken.add(slot);
        all.add(work.run(slot));
      }
      return all;
    } finally {
      taken.forEach(slot -> pool.give(slot, true));
    }
  }

  /** This JVM's write lock on the file (for tests). */
  ReentrantLock writeLock() {
    return writeLock;
  }

  private static String pragma(Statement statement, String pragma) throws SQLException {
    try (ResultSet rs = statement.executeQuery(pragma)) {
      return rs.next() ? rs.getString(1) : null;
    }
  }

  private void checkOpen() {
    if (closed.get()) {
      throw new IllegalStateException(closedMessage(settings));
    }
  }

  private static String closedMessage(Settings settings) {
    return Validate.storeClosed("sqlite store on " + settings.file(), null, null).getMessage();
  }

  /** The file's identity (device and inode where the file system has them), or null. */
  private static Object fileKey(Path file) throws IOException {
    return Files.readAttributes(file, BasicFileAttributes.class).fileKey();
  }

  /**
   * Refuses a write when the file at the store's path is no longer the one it opened (deleted or
   * replaced underneath: the write would land in a file no path reaches, and a restart would find
   * none of it), or cannot be written any more (made read-only or immutable, {@code chattr +i}:
   * SQLite's open connections would go on writing the WAL until a checkpoint fails). Two file
   * system calls, before the write transaction begins.
   */
  private void checkFile(String operation, String sessionId) {
    String problem;
    try {
      Object now = fileKey(settings.file());
      if (fileKey != null && !fileKey.equals(now)) {
        problem =
            "is no longer the file this store opened (it was replaced underneath); restart so the"
                + " store opens the file at its path, and look for the orders written since in the"
                + " old one if a process still holds it";
      } else if (!Files.isWritable(settings.file())) {
        problem =
            "can no longer be written (read-only, or immutable: lsattr shows 'i'); make it writable"
                + " again (chmod, chattr -i)";
      } else {
        return;
      }
    } catch (NoSuchFileException e) {
      problem =
          "was deleted underneath this store; restore it from a backup and restart, or restart to"
              + " start an empty one";
    } catch (IOException e) {
      problem = "cannot be read (" + e + "); check the file and its directory";
    }
    throw failed(operation, sessionId, false, "the file " + settings.file() + " " + problem, null);
  }

  private void lockWrites(String operation, String sessionId) {
    checkFile(operation, sessionId);
    try {
      if (writeLock.tryLock(
          ConnectionPool.nanos(settings.acquireTimeout()), TimeUnit.NANOSECONDS)) {
        return;
      }
    } catch (InterruptedException e) {
      throw interrupted(operation, sessionId, "waiting for this process's earlier writes", e);
    }
    String message =
        ("waited acquireTimeout (%s) for this process's earlier writes to %s to finish, with %s"
                + " other writes queued; raise acquireTimeout, or find what keeps the writes slow"
                + " (another process holding the file, a slow disk)")
            .formatted(settings.acquireTimeout(), settings.file(), writeLock.getQueueLength());
    throw failed(operation, sessionId, false, message, null);
  }

  private ConnectionPool.Slot take(String operation, String sessionId) {
    try {
      ConnectionPool.Slot slot = pool.take(settings.acquireTimeout());
      if (slot != null) {
        return slot;
      }
    } catch (InterruptedException e) {
      throw interrupted(operation, sessionId, "waiting for a connection", e);
    } catch (SQLException e) {
      throw unavailable(settings, operation, sessionId, false, "could not reopen a connection", e);
    }
    String message =
        ("no connection to %s came free within acquireTimeout (%s); all %s are in use: raise"
                + " connections(...) or acquireTimeout(...)")
            .formatted(settings.file(), settings.acquireTimeout(), pool.size());
    throw failed(operation, sessionId, false, message, null);
  }

  /** Keeps the thread's interrupt, and fails the operation interrupted while {@code doing}. */
  private StoreUnavailableException interrupted(
      String operation, String sessionId, String doing, InterruptedException e) {
    Thread.currentThread().interrupt();
    String message = "interrupted while %s to %s".formatted(doing, settings.file());
    return failed(operation, sessionId, false, message, e);
  }

  /** One order inside a write transaction, on statements prepared once per connection. */
  private final class SqliteLockedOrder extends JdbcLockedOrder {

    private final ConnectionPool.Slot slot;

    SqliteLockedOrder(ConnectionPool.Slot slot, String sessionId) {
      super(BACKEND, settings.file().toString(), sessionId, sql.forSteps());
      this.slot = slot;
    }

    @Override
    protected PreparedStatement prepare(String statementSql) throws SQLException {
      return slot.prepare(statementSql);
    }

    /** Kept: the slot reuses its statements until the connection is closed. */
    @Override
    protected void release(PreparedStatement statement) {}

    /** claim_fence: the claim's fence, for processes of earlier versions that read it. */
    @Override
    protected int bindExtraColumns(PreparedStatement statement, int index, OrderRecord record)
        throws SQLException {
      if (record.claimId() == null) {
        statement.setNull(index, Types.BIGINT);
      } else {
        statement.setLong(index, record.claimId().fence());
      }
      return index + 1;
    }
  }

  private static StoreUnavailableException unavailable(
      Settings settings,
      String operation,
      String sessionId,
      boolean outcomeUnknown,
      String what,
      SQLException e) {
    return failed(
        operation,
        sessionId,
        outcomeUnknown,
        "%s on %s (%s); %s".formatted(what, settings.file(), e.getMessage(), remedy(settings, e)),
        e);
  }

  private static String remedy(Settings settings, SQLException e) {
    return switch (primaryCode(e)) {
      case SQLITE_BUSY, SQLITE_LOCKED ->
          "another process held the file's write lock for longer than busyTimeout ("
              + settings.busyTimeout()
              + "); raise busyTimeout or shorten that process's transactions";
      case SQLITE_FULL -> "the disk is full; free space on it";
      case SQLITE_READONLY, SQLITE_PERM, SQLITE_CANTOPEN ->
          "check that this process may read and write the file and its directory (SQLite also"
              + " creates the -wal and -shm files next to it)";
      case SQLITE_IOERR, SQLITE_CORRUPT, SQLITE_NOTADB ->
          "check the disk and the file; if the file is damaged, restore it from a backup";
      default -> "check the file and the driver's message";
    };
  }

  private static StoreUnavailableException failed(
      String operation, String sessionId, boolean outcomeUnknown, String message, Throwable cause) {
    return new StoreUnavailableException(
        BACKEND, operation, sessionId, outcomeUnknown, message, cause);
  }

  private static void closeQuietly(Connection connection) {
    try {
      connection.close();
    } catch (SQLException ignored) {
      // being discarded after another failure, which is the one reported
    }
  }
}
