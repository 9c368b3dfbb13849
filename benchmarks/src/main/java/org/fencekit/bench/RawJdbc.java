package org.fencekit.bench;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Clock;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;
import org.fencekit.store.ClaimId;
import org.fencekit.store.OrderSnapshot;
import org.fencekit.store.jdbc.SqlTemplates;
import org.fencekit.store.mysql.MysqlOrderStore;
import org.fencekit.store.sqlite.SqliteOrderStore;
import org.sqlite.SQLiteConfig;

/**
 * The JDBC stores' own statements through the bare driver: one connection per thread, statements
 * prepared once per connection and bound by column name ({@link SqlParameters}), no pool, no
 * validation, no records built. One shape for SQLite and PostgreSQL:
 *
 * <ul>
 *   <li>locking: a claim is one transaction of the store's read statement (SQLite's
 *       select-order.sql in {@code BEGIN IMMEDIATE}, PostgreSQL's lock-order.sql, {@code SELECT ...
 *       FOR UPDATE}) and insert-order.sql; a complete one transaction of the read, a nonce
 *       comparison and update-order.sql;
 *   <li>single statement (PostgreSQL's and MySQL's fast path): insert-order.sql to claim and
 *       complete-fast.sql to complete, each in auto-commit; on MySQL, which has no {@code
 *       RETURNING}, the complete answers an update count, as the store's complete of its own claim.
 * </ul>
 *
 * SQLite's writers in this process queue on one plain lock, the cheapest way not to poll in its
 * busy handler. The tables are created by opening the store once, inside the run's {@link
 * Namespace}.
 */
record RawJdbc(
    String engine,
    Connector connector,
    boolean singleStatement,
    boolean updateCount,
    ReentrantLock writes,
    String read,
    String insert,
    String update)
    implements RawDriver {

  /**
   * What a parameter is bound to that each call gives, or SQL NULL; every other parameter is bound
   * to a constant, a String or a Long.
   */
  private enum Value {
    SESSION_ID,
    NONCE,
    NOW,
    LEASE_END,
    FENCE,
    NULL
  }

  /** The order of every claim but for its session id, as the stores' benchmarks create it. */
  private static final OrderSnapshot ORDER = Orders.snapshot("raw");

  /** A first claim's row: PENDING, fence 1, the claim, nothing settled. */
  private static final Map<String, Object> CLAIM =
      Map.ofEntries(
          Map.entry("session_id", Value.SESSION_ID),
          Map.entry("product_id", ORDER.productId()),
          Map.entry("quantity", (long) ORDER.quantity()),
          Map.entry("customer_email", ORDER.customerEmail()),
          Map.entry("amount_total", ORDER.amountTotal()),
          Map.entry("currency", ORDER.currency()),
          Map.entry("status", "PENDING"),
          Map.entry("provider_order_id", Value.NULL),
          Map.entry("item_payload", Value.NULL),
          Map.entry("last_error", Value.NULL),
          Map.entry("fence", 1L),
          Map.entry("claim_fence", 1L),
          Map.entry("claim_nonce", Value.NONCE),
          Map.entry("claimed_at", Value.NOW),
          Map.entry("lease_expires_at", Value.LEASE_END),
          Map.entry("settled_fence", Value.NULL),
          Map.entry("settled_nonce", Value.NULL),
          Map.entry("updated_at", Value.NOW),
          Map.entry("failures", 0L),
          Map.entry("failed_since", Value.NULL));

  /** The owner's complete: PROVISIONED, the item, no claim, settled by the token. */
  private static final Map<String, Object> COMPLETE =
      Map.ofEntries(
          Map.entry("status", "PROVISIONED"),
          Map.entry("provider_order_id", Orders.ITEM.providerOrderId()),
          Map.entry("item_payload", Orders.ITEM.payload()),
          Map.entry("last_error", Value.NULL),
          Map.entry("fence", Value.FENCE),
          Map.entry("claim_fence", Value.NULL),
          Map.entry("claim_nonce", Value.NULL),
          Map.entry("claimed_at", Value.NULL),
          Map.entry("lease_expires_at", Value.NULL),
          Map.entry("settled_fence", Value.FENCE),
          Map.entry("settled_nonce", Value.NONCE),
          Map.entry("updated_at", Value.NOW),
          Map.entry("failures", 0L),
          Map.entry("failed_since", Value.NULL),
          Map.entry("where.session_id", Value.SESSION_ID),
          Map.entry("where.fence", Value.FENCE),
          Map.entry("where.claim_nonce", Value.NONCE));

  /** Reading an order by its id. */
  private static final Map<String, Object> READ = Map.of("where.session_id", Value.SESSION_ID);

  /** Opens one thread's connection. */
  interface Connector {
    Connection open() throws SQLException;
  }

  /** What every raw SQLite session closes under (see {@link JdbcSession#close}). */
  private static final Object SQLITE_CLOSE = new Object();

  /** SQLite's statements on a fresh file in {@code namespace}, at {@code synchronous}. */
  static RawJdbc sqlite(SqliteOrderStore.Synchronous synchronous, Namespace namespace) {
    Path file = namespace.sqliteFile("raw-" + synchronous.name().toLowerCase(Locale.ROOT));
    SqliteOrderStore.builder(file).build().close();
    SQLiteConfig config = new SQLiteConfig();
    config.setBusyTimeout(5000);
    // the store's modes and the driver's have the same names
    config.setSynchronous(SQLiteConfig.SynchronousMode.valueOf(synchronous.name()));
    config.setJournalMode(SQLiteConfig.JournalMode.WAL);
    config.setGetGeneratedKeys(false); // as the store's connections: "store - raw" is its Java
    String sql = "/org/fencekit/store/sqlite/";
    return new RawJdbc(
        "sqlite",
        () -> config.createConnection("jdbc:sqlite:" + file),
        false,
        false,
        new ReentrantLock(),
        statement(SqlTemplates.SHARED + "select-order.sql"),
        statement(sql + "insert-order.sql"),
        statement(sql + "update-order.sql"));
  }

  /**
   * PostgreSQL's statements at {@code url} (driver defaults), in {@code namespace}'s schema:
   * locking transactions, or the fast path's single statements.
   */
  static RawJdbc postgres(String url, Namespace namespace, boolean singleStatement) {
    StoreType.postgres(Clock.systemUTC(), namespace).jdbcUrl(url).build().close();
    String inSchema = url + (url.contains("?") ? "&" : "?") + "currentSchema=" + namespace.schema();
    String sql = "/org/fencekit/store/postgres/";
    return new RawJdbc(
        "postgres",
        () -> DriverManager.getConnection(inSchema),
        singleStatement,
        false,
        null,
        statement(SqlTemplates.SHARED + "lock-order.sql"),
        statement(sql + "insert-order.sql"),
        statement(
            singleStatement
                ? sql + "complete-fast.sql"
                : SqlTemplates.SHARED + "update-order.sql"));
  }

  /**
   * MySQL's fast-path statements at {@code url}, in {@code namespace}'s database, each in
   * auto-commit at READ COMMITTED as the store's pool runs: insert-order.sql to claim; to complete,
   * complete-fast.sql and its update count (MySQL has no {@code RETURNING}; the store reads the row
   * back only to complete another store's claim).
   */
  static RawJdbc mysql(String url, Namespace namespace) {
    String database = namespace.mysqlDatabase(url);
    MysqlOrderStore.builder().jdbcUrl(database).createSchema(true).build().close();
    return new RawJdbc(
        "mysql",
        () -> {
          Connection connection = DriverManager.getConnection(database);
          connection.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
          return connection;
        },
        true,
        true,
        null,
        statement(SqlTemplates.SHARED + "select-order.sql"),
        statement("/org/fencekit/store/mysql/insert-order.sql"),
        statement("/org/fencekit/store/mysql/complete-fast.sql"));
  }

  /** A store's statement, on the default table names, filled in as the store fills it. */
  static String statement(String path) {
    return SqlTemplates.forTables(RawJdbc.class, "fencekit_orders", "fencekit_orphans", null)
        .statement(path);
  }

  @Override
  public Session session() {
    try {
      return new JdbcSession(connector.open());
    } catch (SQLException e) {
      throw new IllegalStateException(
          "raw " + engine + ": could not connect: " + e.getMessage(), e);
    }
  }

  /** Nothing to close: the sessions own the connections, the namespace the data. */
  @Override
  public void close() {}

  /** A statement and what each of its parameters is bound to: a {@link Value} or a constant. */
  private record Bound(PreparedStatement statement, Object[] values) {

    static Bound prepare(Connection connection, String sql, Map<String, Object> known)
        throws SQLException {
      List<String> names = SqlParameters.names(sql);
      Object[] values = new Object[names.size()];
      for (int i = 0; i < values.length; i++) {
        values[i] = known.get(names.get(i));
        if (values[i] == null) {
          throw new IllegalStateException(
              "the raw baseline has no value for parameter '"
                  + names.get(i)
                  + "' of this statement; add it to RawJdbc:\n"
                  + sql);
        }
      }
      return new Bound(connection.prepareStatement(sql), values);
    }

    PreparedStatement bind(String sessionId, String nonce, long now, long fence)
        throws SQLException {
      for (int i = 0; i < values.length; i++) {
        int p = i + 1;
        if (!(values[i] instanceof Value value)) {
          statement.setObject(p, values[i]);
          continue;
        }
        switch (value) {
          case SESSION_ID -> statement.setString(p, sessionId);
          case NONCE -> statement.setString(p, nonce);
          case NOW -> statement.setLong(p, now);
          case LEASE_END -> statement.setLong(p, now + ClaimCompleteBenchmark.LEASE.toMillis());
          case FENCE -> statement.setLong(p, fence);
          case NULL -> statement.setNull(p, Types.NULL);
        }
      }
      return statement;
    }
  }

  private final class JdbcSession implements Session {
    private final Connection connection;
    private final PreparedStatement begin;
    private final PreparedStatement commit;
    private final Bound read;
    private final Bound insert;
    private final Bound update;
    private final int fenceColumn;
    private final int nonceColumn;

    JdbcSession(Connection connection) throws SQLException {
      this.connection = connection;
      boolean sqlite = writes != null;
      if (!singleStatement && !sqlite) {
        connection.setAutoCommit(false);
      }
      begin = sqlite ? connection.prepareStatement("BEGIN IMMEDIATE") : null;
      commit = sqlite ? connection.prepareStatement("COMMIT") : null;
      read = Bound.prepare(connection, RawJdbc.this.read, READ);
      insert = Bound.prepare(connection, RawJdbc.this.insert, CLAIM);
      update = Bound.prepare(connection, RawJdbc.this.update, COMPLETE);
      List<String> columns = SqlParameters.selected(RawJdbc.this.read);
      fenceColumn = columns.indexOf("fence") + 1;
      nonceColumn = columns.indexOf("claim_nonce") + 1;
      if (fenceColumn == 0 || nonceColumn == 0) {
        throw new IllegalStateException(
            "the store's read statement selects no fence or claim_nonce: " + columns);
      }
    }

    @Override
    public void claimComplete(String sessionId, long now) {
      String nonce = ClaimId.newNonce();
      try {
        if (singleStatement) {
          if (insert.bind(sessionId, nonce, now, 1).executeUpdate() != 1) {
            throw new IllegalStateException("fresh order " + sessionId + " was not claimed");
          }
          // without RETURNING (MySQL): an update count, and no read, as the store's complete of
          // its own claim
          PreparedStatement complete = update.bind(sessionId, nonce, now, 1);
          if (updateCount ? complete.executeUpdate() != 1 : !returnsRow(complete)) {
            throw refused(sessionId);
          }
          return;
        }
        begin();
        try {
          if (returnsRow(read.bind(sessionId, nonce, now, 0))) {
            throw new IllegalStateException("fresh order " + sessionId + " exists already");
          }
          if (insert.bind(sessionId, nonce, now, 1).executeUpdate() != 1) {
            throw new IllegalStateException("fresh order " + sessionId + " was not created");
          }
          commit();
        } finally {
          end();
        }
        begin();
        try {
          long fence;
          try (ResultSet rs = read.bind(sessionId, nonce, now, 0).executeQuery()) {
            if (!rs.next() || !nonce.equals(rs.getString(nonceColumn))) {
              throw refused(sessionId);
            }
            fence = rs.getLong(fenceColumn);
          }
          update.bind(sessionId, nonce, now, fence).executeUpdate();
          commit();
        } finally {
          end();
        }
      } catch (SQLException e) {
        throw new IllegalStateException(
            "raw " + engine + " claim/complete of " + sessionId + " failed: " + e.getMessage(), e);
      }
    }

    private static boolean returnsRow(PreparedStatement query) throws SQLException {
      try (ResultSet rs = query.executeQuery()) {
        return rs.next();
      }
    }

    private IllegalStateException refused(String sessionId) {
      return new IllegalStateException("the owner's complete of " + sessionId + " was refused");
    }

    private void begin() throws SQLException {
      if (writes != null) {
        writes.lock();
        begin.execute();
      }
    }

    private void commit() throws SQLException {
      if (commit != null) {
        commit.execute();
      } else {
        connection.commit();
      }
    }

    /** After a transaction, committed or not (a failure ends the benchmark run). */
    private void end() {
      if (writes != null) {
        writes.unlock();
      }
    }

    @Override
    public void close() {
      try {
        if (writes == null) {
          connection.close();
        } else {
          // two sessions' sqlite-jdbc 3.51.1.0 connections closed at once from JMH's threads
          // deadlocked in the native close (each thread waiting on a mutex the other held, a CI
          // rehearsal hung 10 min in BenchmarksRunBrieflyTest): one SQLite close at a time
          synchronized (SQLITE_CLOSE) {
            connection.close();
          }
        }
      } catch (SQLException e) {
        throw new IllegalStateException("raw " + engine + ": could not close a connection", e);
      }
    }
  }
}
