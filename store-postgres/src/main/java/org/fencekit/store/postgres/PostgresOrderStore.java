package org.fencekit.store.postgres;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.time.Clock;
import java.time.Duration;
import java.util.Locale;
import java.util.StringJoiner;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.fencekit.store.ClaimRequest;
import org.fencekit.store.ClaimResult;
import org.fencekit.store.FencedOrderStore;
import org.fencekit.store.OrderStore;
import org.fencekit.store.StoreUnavailableException;
import org.fencekit.store.Validate;
import org.fencekit.store.WriteRequest;
import org.fencekit.store.WriteResult;

/**
 * An {@link OrderStore} on PostgreSQL: one row per order, and each call decided either by one
 * statement that writes only in the common case or by one transaction under the order's row lock,
 * so any number of threads, processes and hosts can share one database.
 *
 * <p>Algorithm, per call:
 *
 * <ol>
 *   <li>validate every argument, before a connection is borrowed;
 *   <li><b>fast path</b> (on by default; {@link Builder#singleStatementFastPath}): read the clock
 *       once and send a statement in auto-commit, so it is one round trip with no BEGIN or COMMIT,
 *       whose WHERE (or ON CONFLICT) clause is the state machine's condition for the common case
 *       and which writes exactly the machine's record:
 *       <ul>
 *         <li><b>claim</b>: {@code INSERT ... ON CONFLICT (session_id) DO NOTHING} of the record
 *             the machine built for a first claim (insert-order.sql). A claim on an order that
 *             exists (re-claim, InFlight, Provisioned) is always a miss: a conditional re-claim
 *             UPDATE was tried and dropped, because on an order many callers fight over every
 *             caller queued for the row in it and then again in the transaction, which halved that
 *             workload's throughput. An order whose insert missed is remembered (the last of each
 *             of 1024 hash slots) and its later claims skip the insert;
 *         <li><b>complete, fail, extend</b> (complete-fast.sql, fail-fast.sql, extend-fast.sql):
 *             {@code UPDATE ... WHERE} session, fence and nonce are the token presented and, for a
 *             settle, that token is not the one that settled the order last.
 *       </ul>
 *       A row written is a <em>hit</em>: the insert wrote the record the machine built; a settle
 *       returns its row, the machine decides again on the order as it was before (rebuilt from that
 *       row as far as the decision reads it), its record must equal the row (else {@link
 *       IllegalStateException}: the SQL and the machine drifted apart), and its result is the
 *       answer. No row written is a <em>miss</em>, and nothing happened: a claim on an order that
 *       exists (or that a concurrent first claim created first), a superseded token, a replayed
 *       settle, an unknown order, or a statement the server rolled back with 40001 or 40P01 (at
 *       REPEATABLE READ or SERIALIZABLE). A miss goes on to the locking transaction, which decides
 *       everything those cases need (the InFlight or Provisioned answer, the replay's Written, the
 *       orphan of a superseded complete, {@code UnknownOrderException}, the re-claim). A miss costs
 *       its statement on top of the transaction, so for orders many callers fight over (mostly
 *       answered InFlight) the fast path is slower than the transaction alone: turn it off for such
 *       a workload;
 *   <li><b>claim</b>, locking, one transaction: {@code SELECT ... FOR UPDATE} the order's row
 *       (lock-order.sql), which blocks until any transaction holding the row commits and then
 *       returns the row as committed; decide with {@link org.fencekit.store.OrderStateMachine};
 *       write the new state ({@code UPDATE}) if the claim is granted; commit. If there was no row,
 *       the decision is to create the order: {@code INSERT ... ON CONFLICT (session_id) DO
 *       NOTHING}. A row that does not exist cannot be locked, so two first claims can both get
 *       here; the unique key makes the second insert wait for the first to commit and then insert
 *       nothing, and that claim is decided again in a new transaction, which now finds the row and
 *       locks it. The decision is made in one place (the state machine, through {@link
 *       FencedOrderStore}) rather than twice;
 *   <li><b>complete, fail, extend</b>, locking, one transaction: {@code SELECT ... FOR UPDATE} the
 *       order's row; compare the token presented with the row's current claim (fence and nonce);
 *       write the new state, or, for a superseded complete, insert the orphan ({@code ON CONFLICT
 *       DO NOTHING}, keyed by order, claim and provider order id, so a retried complete records it
 *       once); commit. A rejected write changes nothing else;
 *   <li><b>get, orphans</b>: a plain {@code SELECT} of the last committed state;
 *   <li>on any exception inside a transaction, roll it back; a deadlock (40P01) or a serialization
 *       failure (40001) runs the whole transaction again, at most 10 times in all, after a short
 *       random pause.
 * </ol>
 *
 * <p><b>Why READ COMMITTED is enough.</b> Every locking decision is made on a row read with {@code
 * FOR UPDATE}. In READ COMMITTED, PostgreSQL returns the newest committed version of a row it had
 * to wait for (not the statement's snapshot), and no other transaction can change the row until
 * this one ends; so the decision sees every earlier write and nothing can slip in between the read
 * and the write. Orphans are only ever inserted while the order's row is locked. The only thing a
 * row lock cannot cover, a row that does not exist yet, is covered by the primary key and the new
 * transaction described above. A higher isolation level adds no safety here, only serialization
 * failures, which the store would retry; it works at any level. The fast path's statements are safe
 * for the same reasons: an {@code UPDATE} that meets a row another transaction changed waits for it
 * and checks its WHERE clause again on the newest committed version before it writes, holding the
 * row's lock from that check to its commit; {@code INSERT ... ON CONFLICT DO NOTHING} waits for a
 * concurrent insert of the same key and inserts only if that one rolled back. So each statement
 * decides and writes in one atomic step, as the locking transaction does, and a miss is a call that
 * has not happened yet.
 *
 * <p><b>Failures.</b> A lost connection, a pool with no connection to lend in time, or a statement
 * that runs past the query timeout becomes a {@link StoreUnavailableException} naming the operation
 * and the order. Its {@link StoreUnavailableException#outcomeUnknown()} is true only when the
 * failure hit the COMMIT of a transaction that had written, or a fast-path statement after it was
 * sent and before the server answered it (the server may have committed before the connection
 * went); a failure before that, or an error the server answered with (it then rolled the statement
 * or transaction back), leaves nothing written. Retrying the same call with the same token is
 * always safe. A password, whether in the JDBC URL or given to the builder, never appears in a
 * message; the store builds its pool with the password taken out of the URL, so that the driver's
 * own logging never sees it either.
 *
 * <p><b>Connection poolers.</b> The store keeps no session state: no advisory locks, no {@code SET}
 * of session settings, no temporary tables, and every transaction begins and ends within one call
 * (a fast-path statement is a transaction of its own), so it works behind PgBouncer in transaction
 * pooling mode. A pool the store builds from a JDBC URL sets the driver's {@code prepareThreshold}
 * to 0 (no named server-side prepared statements, which a transaction pooler before PgBouncer 1.21
 * cannot follow) unless the URL sets it; give {@code prepareThreshold=0} to your own DataSource
 * when it points at such a pooler. PgBouncer also needs {@code ignore_startup_parameters =
 * extra_float_digits} for the PostgreSQL JDBC driver to connect.
 *
 * <p><b>Schema.</b> {@code schema.sql}, next to this class in the jar, creates both tables; it is
 * idempotent. Build with {@code createSchema(true)} to have the store run it (and {@code CREATE
 * SCHEMA IF NOT EXISTS} for a configured schema), or run it from your migrations.
 *
 * <pre>{@code
 * OrderStore store = PostgresOrderStore.builder()
 *     .jdbcUrl("jdbc:postgresql://db:5432/shop?user=fulfilment")
 *     .password(System.getenv("DB_PASSWORD"))
 *     .createSchema(true)
 *     .build();
 * }</pre>
 */
public final class PostgresOrderStore extends FencedOrderStore {

  /** The default name of the orders table. */
  public static final String DEFAULT_ORDERS_TABLE = "fencekit_orders";

  /** The default name of the orphans table. */
  public static final String DEFAULT_ORPHANS_TABLE = "fencekit_orphans";

  /** The default size of a pool the store builds from a JDBC URL. */
  public static final int DEFAULT_MAXIMUM_POOL_SIZE = 10;

  /** How long a call waits for a connection from a pool the store builds, by default. */
  public static final Duration DEFAULT_CONNECTION_TIMEOUT = Duration.ofSeconds(10);

  /** How long one statement may run (including waiting for an order's row lock), by default. */
  public static final Duration DEFAULT_QUERY_TIMEOUT = Duration.ofSeconds(30);

  private final PostgresStorage storage;
  private final FastPath fastPath;
  private final String description;

  private PostgresOrderStore(
      PostgresStorage storage, Clock clock, FastPath fastPath, String description) {
    super(storage, clock);
    this.storage = storage;
    this.fastPath = fastPath;
    this.description = description;
  }

  /** A builder; give it a {@link Builder#dataSource} or a {@link Builder#jdbcUrl}. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * The fast path's single statement for a fresh order's first claim; on a miss, or with the fast
   * path off, the locking transaction.
   */
  @Override
  protected ClaimResult claim(ClaimRequest request) {
    ClaimResult decided = fastPath == null ? null : fastPath.claim(request);
    return decided != null ? decided : super.claim(request);
  }

  /**
   * The fast path's single statement for the current owner's complete, fail or extend; on a miss,
   * or with the fast path off, the locking transaction.
   */
  @Override
  protected WriteResult write(WriteRequest request) {
    WriteResult decided = fastPath == null ? null : fastPath.write(request);
    return decided != null ? decided : super.write(request);
  }

  /**
   * Closes the pool if the store built it from a JDBC URL; a DataSource you gave stays open.
   * Idempotent. Calls after this throw {@link IllegalStateException}.
   */
  @Override
  public void close() {
    super.close();
  }

  /** The storage, for tests in this package. */
  PostgresStorage storage() {
    return storage;
  }

  /** The fast path, or {@code null} when it is off; for tests in this package. */
  FastPath fastPath() {
    return fastPath;
  }

  /** Where the store keeps its orders, without credentials. */
  @Override
  public String toString() {
    return "PostgresOrderStore[" + description + "]";
  }

  /**
   * Configures a {@link PostgresOrderStore}. Give exactly one of {@link #dataSource} (yours; you
   * close it) or {@link #jdbcUrl} (the store builds a HikariCP pool and closes it). Everything is
   * checked in {@link #build()}, whose exceptions name the property at fault.
   */
  public static final class Builder {

    private static final AtomicInteger POOLS = new AtomicInteger();

    private DataSource dataSource;
    private String jdbcUrl;
    private String username;
    private String password;
    private Integer maximumPoolSize;
    private Duration connectionTimeout;
    private Duration queryTimeout = DEFAULT_QUERY_TIMEOUT;
    private String schema;
    private String ordersTable = DEFAULT_ORDERS_TABLE;
    private String orphansTable = DEFAULT_ORPHANS_TABLE;
    private boolean createSchema;
    private boolean singleStatementFastPath = true;
    private Clock clock = Clock.systemUTC();

    private Builder() {}

    /**
     * Your DataSource (a pool, preferably). The store borrows a connection per statement or
     * transaction, turns auto-commit on for a fast-path statement and off for a transaction (a
     * client-side setting: no round trip) and gives it back as it was lent; it never closes the
     * DataSource. Behind a transaction-pooling PgBouncer before 1.21, configure it with {@code
     * prepareThreshold=0}.
     *
     * @return this builder
     */
    public Builder dataSource(DataSource dataSource) {
      this.dataSource = dataSource;
      return this;
    }

    /**
     * A PostgreSQL JDBC URL ({@code jdbc:postgresql://host:5432/db?user=...}); the store builds a
     * HikariCP pool on it and closes the pool in {@link #close()}. A {@code password} parameter is
     * taken out of the URL and handed to the driver as a property.
     *
     * @return this builder
     */
    public Builder jdbcUrl(String jdbcUrl) {
      this.jdbcUrl = jdbcUrl;
      return this;
    }

    /**
     * The database user for a pool built from {@link #jdbcUrl}; optional if the URL names it.
     *
     * @return this builder
     */
    public Builder username(String username) {
      this.username = username;
      return this;
    }

    /**
     * The password for a pool built from {@link #jdbcUrl}; optional. It never appears in a message.
     *
     * @return this builder
     */
    public Builder password(String password) {
      this.password = password;
      return this;
    }

    /**
     * The most connections a pool built from {@link #jdbcUrl} opens; default {@value
     * PostgresOrderStore#DEFAULT_MAXIMUM_POOL_SIZE}. Each call holds one connection for its
     * transaction only.
     *
     * @return this builder
     */
    public Builder maximumPoolSize(int maximumPoolSize) {
      this.maximumPoolSize = maximumPoolSize;
      return this;
    }

    /**
     * How long a call waits for a connection from a pool built from {@link #jdbcUrl} before it
     * fails with {@link StoreUnavailableException}; at least 250 ms, default 10 s.
     *
     * @return this builder
     */
    public Builder connectionTimeout(Duration connectionTimeout) {
      this.connectionTimeout = connectionTimeout;
      return this;
    }

    /**
     * How long one statement may run, waiting for an order's row lock included, before the server
     * cancels it and the call fails with {@link StoreUnavailableException}; whole seconds (rounded
     * up), at least 1 s, default 30 s. A pool built from {@link #jdbcUrl} also gets a socket
     * timeout 15 s longer, for a server that stops answering altogether.
     *
     * @return this builder
     */
    public Builder queryTimeout(Duration queryTimeout) {
      this.queryTimeout = queryTimeout;
      return this;
    }

    /**
     * The schema (namespace) holding both tables, or {@code null} (the default) for the
     * connection's search path. A plain identifier.
     *
     * @return this builder
     */
    public Builder schema(String schema) {
      this.schema = schema;
      return this;
    }

    /**
     * The orders table; a plain identifier, default {@value
     * PostgresOrderStore#DEFAULT_ORDERS_TABLE}.
     *
     * @return this builder
     */
    public Builder ordersTable(String ordersTable) {
      this.ordersTable = ordersTable;
      return this;
    }

    /**
     * The orphans table; a plain identifier, default {@value
     * PostgresOrderStore#DEFAULT_ORPHANS_TABLE}.
     *
     * @return this builder
     */
    public Builder orphansTable(String orphansTable) {
      this.orphansTable = orphansTable;
      return this;
    }

    /**
     * Whether {@link #build()} creates the schema and the tables if they do not exist (default
     * false: run schema.sql from your migrations instead). Safe to run from many processes at once.
     * PostgreSQL checks the CREATE privilege (on the database for the schema, on the schema for the
     * tables) even when they exist, so a least-privilege user should leave this off.
     *
     * @return this builder
     */
    public Builder createSchema(boolean createSchema) {
      this.createSchema = createSchema;
      return this;
    }

    /**
     * Whether a claim or settle is first tried as one auto-commit statement that writes only in the
     * common case (a fresh order's first claim, the current owner's complete, fail or extend),
     * falling back to the locking transaction whenever it writes nothing; default true. Both ways
     * decide exactly alike (see the class javadoc). The statement is one round trip where the
     * transaction is three; a miss pays one more than the transaction alone, so turn it off (false)
     * where most claims find their order held by another caller.
     *
     * @return this builder
     */
    public Builder singleStatementFastPath(boolean singleStatementFastPath) {
      this.singleStatementFastPath = singleStatementFastPath;
      return this;
    }

    /**
     * The clock all lease arithmetic uses; default the system clock (UTC).
     *
     * @return this builder
     */
    public Builder clock(Clock clock) {
      this.clock = clock;
      return this;
    }

    /**
     * Checks every property, builds the pool if the store owns one, and creates the schema if asked
     * to.
     *
     * @throws IllegalArgumentException or {@link NullPointerException} naming a bad property
     * @throws StoreUnavailableException if {@code createSchema(true)} and PostgreSQL fails
     */
    public PostgresOrderStore build() {
      Validate.notNull("clock", clock);
      Validate.identifier("ordersTable", ordersTable);
      Validate.identifier("orphansTable", orphansTable);
      if (schema != null) {
        Validate.identifier("schema", schema);
      }
      if (ordersTable.equalsIgnoreCase(orphansTable)) {
        throw new IllegalArgumentException(
            "orphansTable must differ from ordersTable, both are '"
                + ordersTable
                + "' (PostgreSQL folds unquoted names to lower case)");
      }
      Validate.notNull("queryTimeout", queryTimeout);
      if (queryTimeout.isNegative()
          || queryTimeout.isZero()
          || queryTimeout.compareTo(Duration.ofDays(1)) > 0) {
        throw new IllegalArgumentException(
            "queryTimeout must be between 1 s and 24 h, got " + queryTimeout);
      }
      int queryTimeoutSeconds = (int) Math.max(1, (queryTimeout.toMillis() + 999) / 1000);
      Sql sql = Sql.forTables(schema, ordersTable, orphansTable);
      PostgresStorage storage =
          dataSource != null
              ? userDataSource(sql, queryTimeoutSeconds)
              : ownedPool(sql, queryTimeoutSeconds);
      if (createSchema) {
        try {
          storage.createSchema(schema != null);
        } catch (RuntimeException e) {
          storage.close();
          throw e;
        }
      }
      StringJoiner description = new StringJoiner(", ");
      description.add(storage.target());
      description.add(
          "orders " + (schema == null ? "" : schema + ".") + ordersTable.toLowerCase(Locale.ROOT));
      description.add(
          "orphans "
              + (schema == null ? "" : schema + ".")
              + orphansTable.toLowerCase(Locale.ROOT));
      description.add(
          singleStatementFastPath ? "single-statement fast path" : "locking transactions only");
      return new PostgresOrderStore(
          storage,
          clock,
          singleStatementFastPath ? new FastPath(storage, clock) : null,
          description.toString());
    }

    private PostgresStorage userDataSource(Sql sql, int queryTimeoutSeconds) {
      String poolOnly =
          jdbcUrl != null
              ? "jdbcUrl"
              : username != null
                  ? "username"
                  : password != null
                      ? "password"
                      : maximumPoolSize != null
                          ? "maximumPoolSize"
                          : connectionTimeout != null ? "connectionTimeout" : null;
      if (poolOnly != null) {
        throw new IllegalArgumentException(
            poolOnly
                + " configures a pool the store builds from"
                + " jdbcUrl, but a dataSource was given: set it on your DataSource instead, or drop"
                + " dataSource and give jdbcUrl");
      }
      String target = "a DataSource (" + dataSource.getClass().getName() + ")";
      return new PostgresStorage(
          dataSource, null, sql, queryTimeoutSeconds, target, Secrets.none());
    }

    private PostgresStorage ownedPool(Sql sql, int queryTimeoutSeconds) {
      if (jdbcUrl == null) {
        throw new IllegalArgumentException(
            "dataSource or jdbcUrl must be set: give your DataSource, or a URL such as"
                + " jdbc:postgresql://localhost:5432/mydb?user=me for a pool the store owns");
      }
      Secrets secrets = Secrets.of(jdbcUrl, password);
      String target = Secrets.redactUrl(jdbcUrl);
      if (!jdbcUrl.startsWith("jdbc:postgresql:")) {
        throw new IllegalArgumentException(
            "jdbcUrl must start with 'jdbc:postgresql:', got '" + secrets.clean(target) + "'");
      }
      int poolSize = maximumPoolSize == null ? DEFAULT_MAXIMUM_POOL_SIZE : maximumPoolSize;
      if (poolSize < 1) {
        throw new IllegalArgumentException("maximumPoolSize must be at least 1, got " + poolSize);
      }
      Duration timeout = connectionTimeout == null ? DEFAULT_CONNECTION_TIMEOUT : connectionTimeout;
      if (timeout.toMillis() < 250) {
        throw new IllegalArgumentException(
            "connectionTimeout must be at least 250 ms, got " + timeout);
      }
      Secrets.Split split = Secrets.split(jdbcUrl);
      if (split.password() != null && password != null) {
        throw new IllegalArgumentException(
            "password is given twice, in jdbcUrl and by password():" + " give it once");
      }
      HikariConfig config = new HikariConfig();
      config.setPoolName("fencekit-postgres-" + POOLS.incrementAndGet());
      config.setJdbcUrl(split.url());
      if (username != null) {
        config.setUsername(username);
      }
      String secret = password != null ? password : split.password();
      if (secret != null) {
        config.setPassword(secret);
      }
      config.setMaximumPoolSize(poolSize);
      config.setConnectionTimeout(timeout.toMillis());
      // build() does not fail when the server is down; the first call does, with a clear message
      config.setInitializationFailTimeout(-1);
      config.setAutoCommit(false);
      // driver properties: a parameter of the same name in the URL wins
      config.addDataSourceProperty("prepareThreshold", "0");
      config.addDataSourceProperty("socketTimeout", String.valueOf(queryTimeoutSeconds + 15));
      HikariDataSource pool;
      try {
        pool = new HikariDataSource(config);
      } catch (RuntimeException e) {
        // the pool's message may quote the URL: keep only a cleaned copy, and not the cause
        throw new IllegalArgumentException(
            "jdbcUrl "
                + target
                + " could not be used to build a"
                + " connection pool: "
                + secrets.clean(String.valueOf(e.getMessage())));
      }
      return new PostgresStorage(pool, pool, sql, queryTimeoutSeconds, target, secrets);
    }
  }
}
