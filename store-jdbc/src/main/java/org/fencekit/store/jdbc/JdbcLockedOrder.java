package org.fencekit.store.jdbc;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Optional;
import org.fencekit.store.Mismatch;
import org.fencekit.store.OrderRecord;
import org.fencekit.store.Orphan;
import org.fencekit.store.spi.Storage;

/**
 * One order inside a JDBC store's atomic step: its reads and writes are statements on the step's
 * connection, inside its transaction. The first {@link #current()} reads the row with the step's
 * read statement (which for PostgreSQL and MySQL also locks it, and with server time also reads the
 * server's clock: {@link Statements#serverTime}) and later calls answer from it. A failed statement
 * is thrown as {@link JdbcFailure}.
 */
public abstract class JdbcLockedOrder implements Storage.LockedOrder {

  /**
   * The statements an order step runs.
   *
   * @param read reads the order by session id, listing {@link OrderRows#ORDER_COLUMNS}
   * @param insertOrder creates the order unless it exists ({@code ON CONFLICT DO NOTHING}, or an
   *     error {@link #duplicateKey} recognises): the {@link OrderRows#ORDER_COLUMNS}, then the
   *     store's extra columns
   * @param updateOrder sets the {@link OrderRows#STATE_COLUMNS}, then the store's extra columns,
   *     then {@code WHERE session_id = ?}
   * @param insertOrphan records an orphan unless the same purchase is recorded already (or fails
   *     with an error {@link #duplicateKey} recognises)
   * @param insertMismatch records a mismatch: {@code shared/insert-mismatch.sql}, binding {@link
   *     OrderRows#MISMATCH_COLUMNS}
   * @param serverTime whether {@code read} also reads the server's clock after the row lock is
   *     held: it then always returns one row, the order's columns all NULL when there is no order,
   *     and the time in epoch milliseconds in a column {@value #SERVER_NOW_COLUMN}, which {@link
   *     #now()} answers (a store's {@code serverTime(true)})
   */
  public record Statements(
      String read,
      String insertOrder,
      String updateOrder,
      String insertOrphan,
      String insertMismatch,
      boolean serverTime) {

    /** Statements whose read returns the order alone: {@code now} is the store's clock's. */
    public Statements(
        String read,
        String insertOrder,
        String updateOrder,
        String insertOrphan,
        String insertMismatch) {
      this(read, insertOrder, updateOrder, insertOrphan, insertMismatch, false);
    }

    /**
     * These statements with {@code serverTimeRead} in place of the read when {@code serverTime},
     * else these.
     *
     * @param serverTimeRead the read with the server's clock, as {@link #serverTime} describes
     */
    public Statements withServerTime(boolean serverTime, String serverTimeRead) {
      return serverTime
          ? new Statements(
              serverTimeRead, insertOrder, updateOrder, insertOrphan, insertMismatch, true)
          : this;
    }
  }

  /** The column of a {@link Statements#serverTime} read that holds the server's time. */
  public static final String SERVER_NOW_COLUMN = "server_now_ms";

  private final String backend;
  private final String where;
  private final String sessionId;
  private final Statements sql;
  private boolean read;
  private OrderRecord current;
  private Instant serverNow;
  private boolean wrote;

  /**
   * @param backend the store's name for messages: "sqlite", "postgres"
   * @param where where the data lives, for messages, without credentials
   * @param sessionId the order of the step
   */
  protected JdbcLockedOrder(String backend, String where, String sessionId, Statements sql) {
    this.backend = backend;
    this.where = where;
    this.sessionId = sessionId;
    this.sql = sql;
  }

  /** A statement for {@code statementSql} on the step's connection. */
  protected abstract PreparedStatement prepare(String statementSql) throws SQLException;

  /** Gives back a statement {@link #prepare} made (closes it, unless the storage caches it). */
  protected abstract void release(PreparedStatement statement) throws SQLException;

  /**
   * Binds the columns a store's insert and update list after the shared ones (none by default),
   * from {@code index} on.
   *
   * @return the next free index
   */
  protected int bindExtraColumns(PreparedStatement statement, int index, OrderRecord record)
      throws SQLException {
    return index;
  }

  /**
   * Runs the step's bound read statement and maps its row, or {@code null} for none; with {@link
   * Statements#serverTime}, also keeps the server's time for {@link #now()}.
   */
  private OrderRecord readCurrent(PreparedStatement statement) throws SQLException {
    if (!sql.serverTime()) {
      return OrderRows.orderIfAny(statement).orElse(null);
    }
    try (ResultSet rows = statement.executeQuery()) {
      if (!rows.next()) {
        throw new SQLException(
            "the locking read with the server's time returned no row; it must return one row"
                + " whether or not the order exists",
            "XX000");
      }
      serverNow = Instant.ofEpochMilli(rows.getLong(SERVER_NOW_COLUMN));
      return rows.getString(1) == null ? null : OrderRows.order(rows);
    }
  }

  /**
   * Whether {@code e}, thrown by the insert of an order or an orphan, says the row exists (another
   * caller created the order first; the orphan is recorded already), for a dialect whose insert
   * cannot skip an existing row without also skipping other errors (MySQL's {@code INSERT IGNORE}):
   * the insert then reports that it wrote nothing. None by default ({@code ON CONFLICT DO NOTHING}
   * inserts nothing instead).
   */
  protected boolean duplicateKey(SQLException e) {
    return false;
  }

  /** Whether a statement of the step changed a row, so its COMMIT may have landed. */
  public boolean wrote() {
    return wrote;
  }

  @Override
  public Optional<OrderRecord> current() {
    if (!read) {
      current =
          run(
              sql.read(),
              statement -> {
                statement.setString(1, sessionId);
                return readCurrent(statement);
              });
      read = true;
    }
    return Optional.ofNullable(current);
  }

  /**
   * With {@link Statements#serverTime}, the server's time read with the order (reading it first if
   * {@link #current()} has not); otherwise empty, for the store's clock.
   */
  @Override
  public Optional<Instant> now() {
    if (sql.serverTime()) {
      current();
    }
    return Optional.ofNullable(serverNow);
  }

  @Override
  public void addMismatch(Mismatch mismatch) {
    requireThisOrder(mismatch.sessionId());
    run(
        sql.insertMismatch(),
        statement -> {
          OrderRows.bindMismatch(statement, mismatch);
          return statement.executeUpdate();
        });
    wrote = true;
  }

  @Override
  public boolean insert(OrderRecord record) {
    requireThisOrder(record.sessionId());
    boolean inserted =
        run(
            sql.insertOrder(),
            statement -> {
              bindExtraColumns(statement, OrderRows.bindOrder(statement, 1, record), record);
              try {
                return statement.executeUpdate() == 1;
              } catch (SQLException e) {
                if (duplicateKey(e)) {
                  return false; // the server undid this statement only; the step goes on
                }
                throw e;
              }
            });
    if (inserted) {
      wrote = true;
      current = record;
      read = true;
    }
    return inserted;
  }

  @Override
  public void update(OrderRecord record) {
    requireThisOrder(record.sessionId());
    if (!read || current == null) {
      throw new IllegalStateException(
          backend
              + " store: update of order '"
              + sessionId
              + "' that was not read in its step first; read current() before update()");
    }
    int updated =
        run(
            sql.updateOrder(),
            statement -> {
              int next =
                  bindExtraColumns(statement, OrderRows.bindState(statement, 1, record), record);
              statement.setString(next, sessionId);
              return statement.executeUpdate();
            });
    if (updated != 1) {
      throw new IllegalStateException(
          backend
              + " store: update of order '"
              + sessionId
              + "' at "
              + where
              + " changed "
              + updated
              + " rows in its step, expected 1; was the row deleted or its session_id changed"
              + " outside the store? The step is rolled back");
    }
    wrote = true;
    current = record;
  }

  @Override
  public void addOrphan(Orphan orphan) {
    requireThisOrder(orphan.sessionId());
    boolean added =
        run(
            sql.insertOrphan(),
            statement -> {
              OrderRows.bindOrphan(statement, orphan);
              try {
                return statement.executeUpdate() > 0;
              } catch (SQLException e) {
                if (duplicateKey(e)) {
                  return false; // recorded already; the server undid this statement only
                }
                throw e;
              }
            });
    wrote |= added;
  }

  /** A statement's work. */
  @FunctionalInterface
  private interface StatementWork<T> {
    T run(PreparedStatement statement) throws SQLException;
  }

  private <T> T run(String statementSql, StatementWork<T> work) {
    try {
      PreparedStatement statement = prepare(statementSql);
      try {
        return work.run(statement);
      } finally {
        release(statement);
      }
    } catch (SQLException e) {
      throw new JdbcFailure(e);
    }
  }

  private void requireThisOrder(String other) {
    if (!sessionId.equals(other)) {
      throw new IllegalArgumentException(
          backend
              + " store: a step on order '"
              + sessionId
              + "' was asked to write order '"
              + other
              + "'");
    }
  }
}
