package org.fencekit.store.jdbc;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.time.Duration;
import java.util.StringJoiner;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.fencekit.store.spi.Credentials;
import org.fencekit.store.spi.FencedAdminOrderStore;
import org.fencekit.store.spi.Validate;

/**
 * What the builders of the SQL stores on a database server (PostgreSQL, MySQL) share beyond {@link
 * JdbcStoreBuilder}: the connections, either the user's {@link DataSource} or a HikariCP pool the
 * store builds from a JDBC URL and owns, the query timeout, and leases on the server's clock
 * ({@link #serverTime}). {@code build()} takes them through {@link #queryTimeoutSeconds()} and
 * {@link #connections}; a dialect says which URLs are its own and tunes its driver ({@link
 * #driverUrl}, {@link #tune}).
 *
 * @param <B> the store's builder, which every setter returns
 */
public abstract class PooledStoreBuilder<B extends PooledStoreBuilder<B>>
    extends JdbcStoreBuilder<B> {

  /** The default size of a pool the store builds from a JDBC URL. */
  public static final int DEFAULT_MAXIMUM_POOL_SIZE = 10;

  /** How long a call waits for a connection from a pool the store builds, by default. */
  public static final Duration DEFAULT_CONNECTION_TIMEOUT = Duration.ofSeconds(10);

  /** How long one statement may run (including waiting for an order's row lock), by default. */
  public static final Duration DEFAULT_QUERY_TIMEOUT = Duration.ofSeconds(30);

  private static final AtomicInteger POOLS = new AtomicInteger();

  private DataSource dataSource;
  private String jdbcUrl;
  private String username;
  private String password;
  private Integer maximumPoolSize;
  private Duration connectionTimeout;
  private boolean requireServerAtBuild;
  private Duration queryTimeout = DEFAULT_QUERY_TIMEOUT;
  private boolean serverTime;
  private boolean singleStatementFastPath = true;

  /**
   * @param createSchema the store's default for {@link #createSchema(boolean)}
   */
  protected PooledStoreBuilder(boolean createSchema) {
    super(createSchema);
  }

  /**
   * Your DataSource (a pool, preferably). The store borrows a connection per statement or
   * transaction, turns auto-commit on for a single statement and off for a transaction where the
   * connection was lent otherwise (pgjdbc keeps the setting on the client; Connector/J sends each
   * change as a round trip, so lend in auto-commit, the default, for the fast path) and gives it
   * back as it was lent; it never closes the DataSource. The store's class says what its driver
   * needs of it.
   *
   * @return this builder
   */
  public final B dataSource(DataSource dataSource) {
    this.dataSource = dataSource;
    return self();
  }

  /**
   * A JDBC URL of the store's database (see the store's class); the store builds a HikariCP pool on
   * it and closes the pool in {@code close()}. A {@code password} parameter is taken out of the URL
   * and handed to the driver as a property.
   *
   * @return this builder
   */
  public final B jdbcUrl(String jdbcUrl) {
    this.jdbcUrl = jdbcUrl;
    return self();
  }

  /**
   * The database user for a pool built from {@link #jdbcUrl}; optional if the URL names it.
   *
   * @return this builder
   */
  public final B username(String username) {
    this.username = username;
    return self();
  }

  /**
   * The password for a pool built from {@link #jdbcUrl}; optional. It never appears in a message.
   *
   * @return this builder
   */
  public final B password(String password) {
    this.password = password;
    return self();
  }

  /**
   * The most connections a pool built from {@link #jdbcUrl} opens; default {@value
   * #DEFAULT_MAXIMUM_POOL_SIZE}. Each call holds one connection for its transaction only.
   *
   * @return this builder
   */
  public final B maximumPoolSize(int maximumPoolSize) {
    this.maximumPoolSize = maximumPoolSize;
    return self();
  }

  /**
   * How long a call waits for a connection from a pool built from {@link #jdbcUrl} before it fails
   * with {@link org.fencekit.store.StoreUnavailableException} (nothing written); at least 250 ms,
   * default 10 s. It bounds a borrow: the pool's validation of an idle connection is held to a
   * quarter of it (at least 250 ms; a driver that counts it in whole seconds waits up to 1 s), not
   * HikariCP's 5 s.
   *
   * <p>The worst time of one call against a server that stops answering (paused, or a network that
   * drops packets) is this, plus up to 1 s of validation, plus {@link #queryTimeout} + 15 s (the
   * socket timeout: a paused server cannot act on the query timeout's cancel request).
   *
   * @return this builder
   */
  public final B connectionTimeout(Duration connectionTimeout) {
    this.connectionTimeout = connectionTimeout;
    return self();
  }

  /**
   * Whether {@code build()} fails with {@link org.fencekit.store.StoreUnavailableException} when
   * the server does not answer its schema check; default false: the store is built all the same and
   * its first call checks the schema instead, so a service that starts before its database works
   * once the database is up (with {@link #createSchema} true, {@code build()} always fails). A
   * program that runs once and exits (a command line, a job) sets it, to fail after one {@link
   * #connectionTimeout} rather than wait a second one at its first call.
   *
   * @return this builder
   */
  public final B requireServerAtBuild(boolean requireServerAtBuild) {
    this.requireServerAtBuild = requireServerAtBuild;
    return self();
  }

  /**
   * How long one statement may run, waiting for an order's row lock included, before the server
   * cancels it and the call fails with {@link org.fencekit.store.StoreUnavailableException}; whole
   * seconds (rounded up), at least 1 s, default 30 s. The driver's timer cancels a statement; the
   * PostgreSQL store's single statements are cancelled by a thread of the store's own instead, up
   * to 0.1 s later. A pool built from {@link #jdbcUrl} also gets a socket timeout 15 s longer, for
   * a server that stops answering altogether.
   *
   * @return this builder
   */
  public final B queryTimeout(Duration queryTimeout) {
    this.queryTimeout = queryTimeout;
    return self();
  }

  /**
   * Whether lease arithmetic takes {@code now} from the database server instead of {@link #clock}:
   * each claim, complete, fail and extend reads the server's clock in its transaction's locking
   * statement, after the order's row lock is held (no extra round trip; the store's class says how
   * its server is read), so a host whose clock is wrong can neither take over a live order nor keep
   * a dead one. The state machine still decides; only where {@code now} comes from changes. Calls
   * then use the locking transactions only (the fast path's single statements take {@code now} from
   * the client), so {@code singleStatementFastPath} is ignored. The ages of the admin listings stay
   * on {@link #clock}. Default false (the clock).
   *
   * @return this builder
   */
  public final B serverTime(boolean serverTime) {
    this.serverTime = serverTime;
    return self();
  }

  /**
   * Checks every property, builds the pool if the store owns one, checks the schema version and
   * brings it up to date if asked to ({@link #createSchema}); the store's builder says more.
   *
   * @return the store, which closes the pool it built
   */
  public abstract FencedAdminOrderStore build();

  /** Whether {@link #requireServerAtBuild} is on, for {@code build()}. */
  protected final boolean requiresServerAtBuild() {
    return requireServerAtBuild;
  }

  /** Whether {@link #serverTime} is on, for {@code build()}. */
  protected final boolean takesServerTime() {
    return serverTime;
  }

  /**
   * Whether the calls the store can answer with one auto-commit statement try it first (the store's
   * class says which: a fresh order's first claim, the current owner's settle), falling back to the
   * locking transaction wherever the statement writes nothing; default true, ignored with {@link
   * #serverTime}. Both ways decide alike. A miss (a claim of an order that exists, a superseded
   * settle) pays the statement on top of the transaction, so turn it off (false) where most claims
   * find their order held by another caller.
   *
   * @return this builder
   */
  public final B singleStatementFastPath(boolean singleStatementFastPath) {
    this.singleStatementFastPath = singleStatementFastPath;
    return self();
  }

  /**
   * Whether calls try the single statements first: {@link #singleStatementFastPath}, no server
   * time.
   */
  protected final boolean takesFastPath() {
    return singleStatementFastPath && !serverTime;
  }

  /**
   * The store's description for its {@code toString()}: where the data lives (no credentials), the
   * tables as the store names them, which path calls take, and the server's time if it is used.
   */
  protected final String description(String target, String orders, String orphans) {
    StringJoiner description = new StringJoiner(", ");
    description.add(target).add("orders " + orders).add("orphans " + orphans);
    description.add(takesFastPath() ? "single-statement fast path" : "locking transactions only");
    if (serverTime) {
      description.add("server time");
    }
    return description.toString();
  }

  /**
   * The URL the driver gets for {@code jdbcUrl}, or {@code null} if it is not one of the store's.
   */
  protected abstract String driverUrl(String jdbcUrl);

  /**
   * Why {@link #driverUrl} refused, and a good URL, for the message: "must start with
   * 'jdbc:postgresql:'" and "jdbc:postgresql://localhost:5432/mydb?user=me".
   */
  protected abstract String[] urlRule();

  /** Adds the driver's settings to a pool the store builds, before it is built. */
  protected abstract void tune(HikariConfig config, int queryTimeoutSeconds);

  /**
   * The store's own setting that configures a pool the store builds, if it is set (for the message
   * when a DataSource is given too), else {@code null}.
   */
  protected String poolOnlySetting() {
    return null;
  }

  /**
   * The query timeout in whole seconds, rounded up.
   *
   * @throws NullPointerException or {@link IllegalArgumentException} if it is not between 1 s and
   *     24 h
   */
  protected final int queryTimeoutSeconds() {
    Validate.notNull("queryTimeout", queryTimeout);
    if (queryTimeout.isNegative()
        || queryTimeout.isZero()
        || queryTimeout.compareTo(Duration.ofDays(1)) > 0) {
      throw new IllegalArgumentException(
          "queryTimeout must be between 1 s and 24 h, got " + queryTimeout);
    }
    return (int) Math.max(1, (queryTimeout.toMillis() + 999) / 1000);
  }

  /**
   * The store's connections: the user's DataSource, or a HikariCP pool built from the URL.
   *
   * @param backend the store's name: "postgres", "mysql"
   * @throws IllegalArgumentException naming the property at fault
   */
  protected final JdbcStorage.Connections connections(String backend) {
    int queryTimeoutSeconds = queryTimeoutSeconds();
    if (dataSource != null) {
      String poolOnly =
          jdbcUrl != null
              ? "jdbcUrl"
              : username != null
                  ? "username"
                  : password != null
                      ? "password"
                      : maximumPoolSize != null
                          ? "maximumPoolSize"
                          : connectionTimeout != null ? "connectionTimeout" : poolOnlySetting();
      if (poolOnly != null) {
        throw new IllegalArgumentException(
            poolOnly
                + " configures a pool the store builds from"
                + " jdbcUrl, but a dataSource was given: set it on your DataSource instead, or drop"
                + " dataSource and give jdbcUrl");
      }
      String target = "a DataSource (" + dataSource.getClass().getName() + ")";
      return new JdbcStorage.Connections(
          backend, dataSource, null, queryTimeoutSeconds, target, Credentials.NONE);
    }
    String[] rule = urlRule();
    if (jdbcUrl == null) {
      throw new IllegalArgumentException(
          "dataSource or jdbcUrl must be set: give your DataSource, or a URL such as "
              + rule[1]
              + " for a pool the store owns");
    }
    Credentials credentials = Credentials.of(jdbcUrl, password);
    String target = Credentials.withoutCredentials(jdbcUrl);
    String url = driverUrl(jdbcUrl);
    if (url == null) {
      throw new IllegalArgumentException(
          "jdbcUrl " + rule[0] + ", got '" + credentials.mask(target) + "'");
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
    PasswordParameter.Split split = PasswordParameter.split(url);
    if (split.password() != null && password != null) {
      throw new IllegalArgumentException(
          "password is given twice, in jdbcUrl and by password():" + " give it once");
    }
    HikariConfig config = new HikariConfig();
    config.setPoolName("fencekit-" + backend + "-" + POOLS.incrementAndGet());
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
    // server that is down fails the first call instead, unless createSchema or
    // requireServerAtBuild)
    config.setInitializationFailTimeout(-1);
    config.setAutoCommit(false);
    tune(config, queryTimeoutSeconds);
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
    return new JdbcStorage.Connections(
        backend, pool, pool, queryTimeoutSeconds, target, credentials);
  }
}
