package org.fencekit.store.postgres;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.time.Clock;
import java.time.Duration;
import java.util.Locale;
import java.util.StringJoiner;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.fencekit.store.ClaimResult;
import org.fencekit.store.OrderStore;
import org.fencekit.store.StoreUnavailableException;
import org.fencekit.store.WriteResult;
import org.fencekit.store.jdbc.JdbcStoreBuilder;
import org.fencekit.store.spi.ClaimRequest;
import org.fencekit.store.spi.Credentials;
import org.fencekit.store.spi.FencedAdminOrderStore;
import org.fencekit.store.spi.FencedOrderStore;
import org.fencekit.store.spi.Validate;
import org.fencekit.store.spi.WriteRequest;

/**
 * An {@link OrderStore} on PostgreSQL, one row per order, safe for any number of threads, processes
 * and hosts sharing one database.
 *
 * <pre>{@code
 * OrderStore store = PostgresOrderStore.builder()
 *     .jdbcUrl("jdbc:postgresql://db:5432/shop?user=fulfilment")
 *     .password(System.getenv("DB_PASSWORD"))
 *     .createSchema(true)
 *     .build();
 * }</pre>
 *
 * <p>Per call:
 *
 * <ol>
 *   <li>validate every argument, before a connection is borrowed ({@link FencedOrderStore});
 *   <li>unless {@link Builder#singleStatementFastPath} is off: one auto-commit statement that
 *       writes only in the common case, a fresh order's first claim or the current owner's settle
 *       ({@link FastPath} says why it decides as the state machine does); a statement that wrote
 *       nothing is a miss, and nothing happened;
 *   <li>otherwise, and on a miss: one READ COMMITTED transaction that reads the order's row {@code
 *       FOR UPDATE}, decides with {@link org.fencekit.store.spi.OrderStateMachine}, writes the row
 *       (or a superseded complete's orphan) and commits ({@link PostgresStorage}); a first claim
 *       that lost the insert race is decided again against the winner's row.
 * </ol>
 *
 * <p>Failures: {@link StoreUnavailableException}, whose {@code outcomeUnknown()} is true only when
 * the failure hit the COMMIT of a transaction that wrote, or a fast-path statement after it was
 * sent; retrying the same call with the same token is always safe. No message contains a password
 * (the pool is built with the password taken out of the URL). The store keeps no session state, so
 * it works behind PgBouncer in transaction pooling mode (before PgBouncer 1.21, build it with
 * {@link Builder#pgBouncerBefore121}, which turns server-side prepared statements off). The DDL is
 * versioned: {@code db/migration/fencekit/postgres/V1__fencekit_tables.sql} and {@code
 * V2__fencekit_operations.sql} in this jar; {@link Builder#build()} reads the database's version
 * and refuses an older one naming the scripts to run (or runs them with {@code createSchema(true)})
 * and a newer one. The operator's listings ({@link org.fencekit.store.OrderStoreAdmin}) are range
 * scans of partial indexes V2 creates. Why READ COMMITTED is enough, the fast path's figures and
 * the operations notes are in the README.
 */
public final class PostgresOrderStore extends FencedAdminOrderStore {

  /** The default name of the orders table. */
  public static final String DEFAULT_ORDERS_TABLE = JdbcStoreBuilder.DEFAULT_ORDERS_TABLE;

  /** The default name of the orphans table. */
  public static final String DEFAULT_ORPHANS_TABLE = JdbcStoreBuilder.DEFAULT_ORPHANS_TABLE;

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
   * checked in {@link #build()}, whose exceptions name the property at fault. The clock, the table
   * names and {@link #createSchema} are the SQL stores' shared settings ({@link JdbcStoreBuilder}).
   */
  public static final class Builder extends JdbcStoreBuilder<Builder> {

    private static final AtomicInteger POOLS = new AtomicInteger();

    private DataSource dataSource;
    private String jdbcUrl;
    private String username;
    private String password;
    private Integer maximumPoolSize;
    private Duration connectionTimeout;
    private Duration queryTimeout = DEFAULT_QUERY_TIMEOUT;
    private String schema;
    private boolean singleStatementFastPath = true;
    private boolean pgBouncerBefore121;
    private boolean serverTime;

    private Builder() {
      super(false);
    }

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
     * fails with {@link StoreUnavailableException} (nothing written); at least 250 ms, default 10
     * s. It bounds a borrow: the pool's validation of an idle connection is held to a quarter of it
     * (at least 250 ms, and pgjdbc counts it in whole seconds, so up to 1 s), not HikariCP's 5 s.
     *
     * <p>The worst time of one call against a server that stops answering (paused, or a network
     * that drops packets) is this, plus up to 1 s of validation, plus {@link #queryTimeout} + 15 s
     * (the socket timeout: a paused server cannot act on the query timeout's cancel request).
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
     * Whether the pool the store builds from {@link #jdbcUrl} must work behind PgBouncer before
     * 1.21 in transaction pooling mode, which cannot follow named server-side prepared statements:
     * true sets the driver's {@code prepareThreshold=0}, so the server parses and plans every
     * statement again (about 40% of the fast path's throughput on a 2-core machine); default false,
     * the driver's default (a statement is prepared on the server from its fifth use). PgBouncer
     * 1.21 and later handle prepared statements in transaction mode themselves. A {@code
     * prepareThreshold} in the URL wins either way. For your own {@link #dataSource}, set {@code
     * prepareThreshold=0} on it instead.
     *
     * @return this builder
     */
    public Builder pgBouncerBefore121(boolean pgBouncerBefore121) {
      this.pgBouncerBefore121 = pgBouncerBefore121;
      return this;
    }

    /**
     * Whether lease arithmetic takes {@code now} from the PostgreSQL server ({@code
     * clock_timestamp()}, read in each transaction's locking statement after the row lock is held:
     * no extra round trip) instead of {@link #clock}: a host whose clock is wrong can then neither
     * take over a live order nor keep a dead one. The state machine still decides; only where
     * {@code now} comes from changes. Calls then use the locking transactions only (the fast path's
     * single statements take {@code now} from the client), so {@link #singleStatementFastPath} is
     * ignored. Default false (the clock).
     *
     * @return this builder
     */
    public Builder serverTime(boolean serverTime) {
      this.serverTime = serverTime;
      return this;
    }

    /**
     * Checks every property, builds the pool if the store owns one, checks the schema version and
     * brings it up to date if asked to ({@link #createSchema}).
     *
     * @throws IllegalArgumentException or {@link NullPointerException} naming a bad property
     * @throws IllegalStateException if the schema version is newer than this store's, or older
     *     without {@code createSchema(true)}, naming the scripts to run
     * @throws StoreUnavailableException if PostgreSQL fails
     */
    public PostgresOrderStore build() {
      Clock clock = checkedClock();
      Tables tables = checkedTables("PostgreSQL folds unquoted names to lower case");
      if (schema != null) {
        Validate.identifier("schema", schema);
      }
      Validate.notNull("queryTimeout", queryTimeout);
      if (queryTimeout.isNegative()
          || queryTimeout.isZero()
          || queryTimeout.compareTo(Duration.ofDays(1)) > 0) {
        throw new IllegalArgumentException(
            "queryTimeout must be between 1 s and 24 h, got " + queryTimeout);
      }
      int queryTimeoutSeconds = (int) Math.max(1, (queryTimeout.toMillis() + 999) / 1000);
      Sql sql = Sql.forTables(schema, tables.orders(), tables.orphans());
      PostgresStorage storage =
          dataSource != null
              ? userDataSource(sql, queryTimeoutSeconds)
              : ownedPool(sql, queryTimeoutSeconds);
      try {
        storage.checkSchemaAtStart(createsSchema(), schema != null);
      } catch (RuntimeException e) {
        storage.close();
        throw e;
      }
      StringJoiner description = new StringJoiner(", ");
      description.add(storage.target());
      String prefix = schema == null ? "" : schema + ".";
      description.add("orders " + prefix + tables.orders().toLowerCase(Locale.ROOT));
      description.add("orphans " + prefix + tables.orphans().toLowerCase(Locale.ROOT));
      boolean fast = singleStatementFastPath && !serverTime;
      description.add(fast ? "single-statement fast path" : "locking transactions only");
      if (serverTime) {
        description.add("server time");
      }
      return new PostgresOrderStore(
          storage, clock, fast ? new FastPath(storage, clock) : null, description.toString());
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
                          : connectionTimeout != null
                              ? "connectionTimeout"
                              : pgBouncerBefore121 ? "pgBouncerBefore121" : null;
      if (poolOnly != null) {
        throw new IllegalArgumentException(
            poolOnly
                + " configures a pool the store builds from"
                + " jdbcUrl, but a dataSource was given: set it on your DataSource instead, or drop"
                + " dataSource and give jdbcUrl");
      }
      String target = "a DataSource (" + dataSource.getClass().getName() + ")";
      return new PostgresStorage(
          dataSource, null, sql, queryTimeoutSeconds, target, Credentials.NONE, serverTime);
    }

    private PostgresStorage ownedPool(Sql sql, int queryTimeoutSeconds) {
      if (jdbcUrl == null) {
        throw new IllegalArgumentException(
            "dataSource or jdbcUrl must be set: give your DataSource, or a URL such as"
                + " jdbc:postgresql://localhost:5432/mydb?user=me for a pool the store owns");
      }
      Credentials credentials = Credentials.of(jdbcUrl, password);
      String target = Credentials.withoutCredentials(jdbcUrl);
      if (!jdbcUrl.startsWith("jdbc:postgresql:")) {
        throw new IllegalArgumentException(
            "jdbcUrl must start with 'jdbc:postgresql:', got '" + credentials.mask(target) + "'");
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
      PasswordParameter.Split split = PasswordParameter.split(jdbcUrl);
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
      // HikariCP validates a connection idle over 500 ms before lending it, for up to its
      // validationTimeout (5 s by default, not capped by connectionTimeout): keep it well below
      config.setValidationTimeout(Math.max(250, Math.min(5000, timeout.toMillis() / 4)));
      // the pool starts without a connection; build() then borrows one to check the schema (a
      // server that is down fails the first call instead, unless createSchema)
      config.setInitializationFailTimeout(-1);
      config.setAutoCommit(false);
      // driver properties: a parameter of the same name in the URL wins
      if (pgBouncerBefore121) {
        config.addDataSourceProperty("prepareThreshold", "0");
      }
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
                + credentials.mask(String.valueOf(e.getMessage())));
      }
      return new PostgresStorage(
          pool, pool, sql, queryTimeoutSeconds, target, credentials, serverTime);
    }
  }
}
