package org.fencekit.store.mysql;

import com.zaxxer.hikari.HikariConfig;
import java.time.Clock;
import java.time.Instant;
import java.util.Optional;
import org.fencekit.store.ClaimId;
import org.fencekit.store.ClaimResult;
import org.fencekit.store.OrderRecord;
import org.fencekit.store.OrderStore;
import org.fencekit.store.StoreUnavailableException;
import org.fencekit.store.WriteResult;
import org.fencekit.store.jdbc.FastSettle;
import org.fencekit.store.jdbc.PooledStoreBuilder;
import org.fencekit.store.spi.ClaimRequest;
import org.fencekit.store.spi.FencedAdminOrderStore;
import org.fencekit.store.spi.HeldClaims;
import org.fencekit.store.spi.OrderStateMachine;
import org.fencekit.store.spi.WriteRequest;

/**
 * An {@link OrderStore} on MySQL 8.0.16+ or MariaDB 10.6+ (InnoDB), one row per order, safe for any
 * number of threads, processes and hosts sharing one database.
 *
 * <pre>{@code
 * OrderStore store = MysqlOrderStore.builder()
 *     .jdbcUrl("jdbc:mysql://db:3306/shop?user=fulfilment")
 *     .password(System.getenv("DB_PASSWORD"))
 *     .createSchema(true)
 *     .build();
 * }</pre>
 *
 * <p>Per call: validate every argument before a connection is borrowed; unless {@link
 * Builder#singleStatementFastPath} is off, try a claim as one auto-commit {@code INSERT} of the
 * record the state machine builds for a fresh order (a duplicate key means the order exists, and
 * nothing happened), and the current owner's complete as one auto-commit conditional {@code UPDATE}
 * (and a read of what it wrote, if another store granted the claim: {@link #write}); otherwise, and
 * then, one READ COMMITTED transaction that reads the order's row {@code FOR UPDATE}, decides with
 * {@link OrderStateMachine}, writes the row (or a superseded complete's orphan) and commits ({@link
 * MysqlStorage}). A first claim that lost the insert race is decided again against the winner's
 * row. With {@link Builder#serverTime} the transaction alone decides, on the server's clock read in
 * its locking {@code SELECT}.
 *
 * <p>Failures: {@link StoreUnavailableException}, whose {@code outcomeUnknown()} is true only when
 * the failure hit the COMMIT of a transaction that wrote, or the fast path's insert after it was
 * sent and the server did not answer it; deadlocks and lock wait timeouts are run again. No message
 * contains a password. The DDL is versioned ({@code
 * db/migration/fencekit/mysql/V1__fencekit_tables.sql} and {@code V2__fencekit_operations.sql} in
 * this jar), checked at build as for the other SQL stores. Why READ COMMITTED, and what was tested
 * on which server, is in the README.
 */
public final class MysqlOrderStore extends FencedAdminOrderStore {

  private final MysqlStorage storage;
  private final Clock clock;
  private final boolean fastPath;
  private final String description;
  private final HeldClaims held = new HeldClaims();

  private MysqlOrderStore(MysqlStorage storage, Clock clock, boolean fastPath, String description) {
    super(storage, clock);
    this.storage = storage;
    this.clock = clock;
    this.fastPath = fastPath;
    this.description = description;
  }

  /** A builder; give it a {@link Builder#dataSource} or a {@link Builder#jdbcUrl}. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * With the fast path, a claim is first the auto-commit insert of the record the state machine
   * builds when there is no order: where it lands, that is the machine's answer and write, made
   * atomically by the primary key; where the order exists (a duplicate key) nothing happened, and
   * the locking transaction decides. With the fast path, the store remembers what each claim it
   * grants wrote ({@link HeldClaims}), for that claim's complete.
   */
  @Override
  protected ClaimResult claim(ClaimRequest request) {
    if (!fastPath) {
      return super.claim(request);
    }
    OrderStateMachine.ClaimDecision first =
        OrderStateMachine.claim(null, request, OrderStateMachine.now(clock), ClaimId.newNonce());
    ClaimResult result = storage.insertFast(first.next()) ? first.result() : super.claim(request);
    if (result instanceof ClaimResult.Claimed claimed) {
      held.put(claimed.record());
    }
    return result;
  }

  /**
   * With the fast path, the current owner's complete is first one auto-commit conditional {@code
   * UPDATE}, which writes only if the token is the order's current claim and did not settle it
   * already. Where it wrote for a claim this store granted, the answer is the state machine's write
   * on the record that claim wrote ({@link HeldClaims}): no read. Where it wrote for another
   * store's claim, the row is read back and the machine decides again on its pre-image ({@link
   * FastSettle}). Where it wrote nothing (superseded, replay, unknown order), nothing happened, and
   * the locking transaction decides (and records a superseded complete's orphan). A fail or an
   * extend always takes the transaction: without {@code RETURNING}, a read after them could already
   * show a later write.
   */
  @Override
  protected WriteResult write(WriteRequest request) {
    if (!fastPath || request instanceof WriteRequest.Extend) {
      return super.write(request);
    }
    OrderRecord claimed = held.take(request.sessionId(), request.claimId());
    if (request instanceof WriteRequest.Complete complete) {
      Instant now = OrderStateMachine.now(clock);
      if (claimed != null) {
        if (storage.completeAlone(complete, now)) {
          return OrderStateMachine.write(claimed, request, now).result();
        }
      } else {
        Optional<OrderRecord> written = storage.completeFast(complete, now);
        if (written.isPresent()) {
          return FastSettle.decided(MysqlStorage.BACKEND, written.get(), request, now);
        }
      }
    }
    return super.write(request);
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
  MysqlStorage storage() {
    return storage;
  }

  /** Where the store keeps its orders, without credentials. */
  @Override
  public String toString() {
    return "MysqlOrderStore[" + description + "]";
  }

  /**
   * Configures a {@link MysqlOrderStore}. Give exactly one of {@link #dataSource} (yours; you close
   * it) or {@link #jdbcUrl} (the store builds a HikariCP pool and closes it). Everything is checked
   * in {@link #build()}, whose exceptions name the property at fault. The clock, the table names,
   * {@link #createSchema}, the connections, the query timeout and {@link #serverTime} are the SQL
   * stores' shared settings ({@link PooledStoreBuilder}); the tables live in the database the
   * connections use. The server's time is {@code UTC_TIMESTAMP(6)} at the locking {@code SELECT}'s
   * start plus how long it waited for the row lock ({@code SYSDATE(6) - NOW(6)}), in milliseconds:
   * UTC whatever the session's {@code time_zone} (lock-order-server-time.sql says how a daylight
   * saving change during a lock wait is met).
   *
   * <p>The URL names the database: {@code jdbc:mysql://host:3306/db?user=...} ({@code
   * jdbc:mariadb:} is read as {@code jdbc:mysql:}: the store runs on MySQL Connector/J). The pool
   * the store builds runs its transactions at READ COMMITTED. Over your own DataSource at another
   * level (REPEATABLE READ, MySQL's default, where first claims of one order would take gap locks
   * and deadlock), each transaction sets READ COMMITTED for itself first, one more round trip that
   * configuring the DataSource so saves (HikariCP: {@code
   * transactionIsolation=TRANSACTION_READ_COMMITTED}); your connections go back as they were lent.
   * The query timeout is enforced by the driver, which has the server kill a statement that ran
   * over it (waiting for a row or a table lock included).
   */
  public static final class Builder extends PooledStoreBuilder<Builder> {

    private Builder() {
      super(false);
    }

    /**
     * Checks every property, builds the pool if the store owns one, checks the schema version and
     * brings it up to date if asked to ({@link #createSchema}).
     *
     * @throws IllegalArgumentException or {@link NullPointerException} naming a bad property
     * @throws IllegalStateException if the schema version is newer than this store's, or older
     *     without {@code createSchema(true)}, naming the scripts to run
     * @throws StoreUnavailableException if MySQL fails
     */
    public MysqlOrderStore build() {
      Clock clock = checkedClock();
      Tables tables = checkedTables("MySQL on Windows and macOS folds table names to lower case");
      Sql sql = Sql.forTables(tables.orders(), tables.orphans());
      MysqlStorage storage =
          new MysqlStorage(connections(MysqlStorage.BACKEND), sql, takesServerTime());
      storage.checkSchemaAtStart(createsSchema(), false, requiresServerAtBuild());
      return new MysqlOrderStore(
          storage,
          clock,
          takesFastPath(),
          description(storage.target(), tables.orders(), tables.orphans()));
    }

    @Override
    protected String driverUrl(String jdbcUrl) {
      if (jdbcUrl.startsWith("jdbc:mysql:")) {
        return jdbcUrl;
      }
      return jdbcUrl.startsWith("jdbc:mariadb:")
          ? "jdbc:mysql:" + jdbcUrl.substring("jdbc:mariadb:".length())
          : null;
    }

    @Override
    protected String[] urlRule() {
      return new String[] {
        "must start with 'jdbc:mysql:' or 'jdbc:mariadb:'",
        "jdbc:mysql://localhost:3306/mydb?user=me"
      };
    }

    /**
     * READ COMMITTED (a locking read of a missing order takes no gap lock), a socket timeout, UTF-8
     * (every string column is utf8mb4 or the UTF-8 bytes of the text), the driver's cache of parsed
     * statements, and connections lent in the auto-commit mode of the calls' usual path: on with
     * the fast path, whose single statements then run as they are lent, off without it. Connector/J
     * sends each change of auto-commit to the server as a {@code SET autocommit} round trip.
     */
    @Override
    protected void tune(HikariConfig config, int queryTimeoutSeconds) {
      config.setAutoCommit(takesFastPath());
      config.setTransactionIsolation("TRANSACTION_READ_COMMITTED");
      // driver properties: a parameter of the same name in the URL wins
      config.addDataSourceProperty(
          "socketTimeout", String.valueOf((queryTimeoutSeconds + 15) * 1000L));
      config.addDataSourceProperty("characterEncoding", "UTF-8");
      // Connector/J prepares on the client: without the cache it parses each statement's text
      // again at every prepareStatement, two thirds of what a claim + complete allocates
      config.addDataSourceProperty("cachePrepStmts", "true");
      config.addDataSourceProperty("prepStmtCacheSize", "64");
      config.addDataSourceProperty("prepStmtCacheSqlLimit", "8192");
    }
  }
}
