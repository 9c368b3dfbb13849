package org.fencekit.store.postgres;

import com.zaxxer.hikari.HikariConfig;
import java.time.Clock;
import java.time.Duration;
import java.util.Locale;
import org.fencekit.store.ClaimResult;
import org.fencekit.store.OrderStore;
import org.fencekit.store.StoreUnavailableException;
import org.fencekit.store.WriteResult;
import org.fencekit.store.jdbc.JdbcStoreBuilder;
import org.fencekit.store.jdbc.PooledStoreBuilder;
import org.fencekit.store.spi.ClaimRequest;
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
  public static final int DEFAULT_MAXIMUM_POOL_SIZE = PooledStoreBuilder.DEFAULT_MAXIMUM_POOL_SIZE;

  /** How long a call waits for a connection from a pool the store builds, by default. */
  public static final Duration DEFAULT_CONNECTION_TIMEOUT =
      PooledStoreBuilder.DEFAULT_CONNECTION_TIMEOUT;

  /** How long one statement may run (including waiting for an order's row lock), by default. */
  public static final Duration DEFAULT_QUERY_TIMEOUT = PooledStoreBuilder.DEFAULT_QUERY_TIMEOUT;

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
   * names, {@link #createSchema}, the connections, the query timeout and {@link #serverTime} are
   * the SQL stores' shared settings ({@link PooledStoreBuilder}); PostgreSQL's time is {@code
   * clock_timestamp()}, read in the locking {@code SELECT} after the row lock is held. The URL is a
   * PostgreSQL JDBC URL ({@code jdbc:postgresql://host:5432/db?user=...}). Behind a
   * transaction-pooling PgBouncer before 1.21, configure your own DataSource with {@code
   * prepareThreshold=0} (or use {@link #pgBouncerBefore121} on a pool the store builds). pgjdbc
   * counts the pool's validation timeout in whole seconds, so a borrow's validation waits up to 1
   * s.
   */
  public static final class Builder extends PooledStoreBuilder<Builder> {

    private String schema;
    private boolean pgBouncerBefore121;

    private Builder() {
      super(false);
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
      Sql sql = Sql.forTables(schema, tables.orders(), tables.orphans());
      PostgresStorage storage =
          new PostgresStorage(connections("postgres"), sql, takesServerTime());
      storage.checkSchemaAtStart(createsSchema(), schema != null, requiresServerAtBuild());
      String prefix = schema == null ? "" : schema + ".";
      String description =
          description(
              storage.target(),
              prefix + tables.orders().toLowerCase(Locale.ROOT),
              prefix + tables.orphans().toLowerCase(Locale.ROOT));
      return new PostgresOrderStore(
          storage, clock, takesFastPath() ? new FastPath(storage, clock) : null, description);
    }

    @Override
    protected String driverUrl(String jdbcUrl) {
      return jdbcUrl.startsWith("jdbc:postgresql:") ? jdbcUrl : null;
    }

    @Override
    protected String[] urlRule() {
      return new String[] {
        "must start with 'jdbc:postgresql:'", "jdbc:postgresql://localhost:5432/mydb?user=me"
      };
    }

    @Override
    protected String poolOnlySetting() {
      return pgBouncerBefore121 ? "pgBouncerBefore121" : null;
    }

    /** pgjdbc's settings: a socket timeout, and prepareThreshold=0 before PgBouncer 1.21. */
    @Override
    protected void tune(HikariConfig config, int queryTimeoutSeconds) {
      // driver properties: a parameter of the same name in the URL wins
      if (pgBouncerBefore121) {
        config.addDataSourceProperty("prepareThreshold", "0");
      }
      config.addDataSourceProperty("socketTimeout", String.valueOf(queryTimeoutSeconds + 15));
    }
  }
}
