package org.fencekit.store.sqlite;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import org.fencekit.store.OrderStore;
import org.fencekit.store.StoreUnavailableException;
import org.fencekit.store.jdbc.JdbcStoreBuilder;
import org.fencekit.store.spi.FencedAdminOrderStore;
import org.fencekit.store.spi.FencedOrderStore;
import org.fencekit.store.spi.Validate;

/**
 * An {@link OrderStore} in one SQLite file, safe for many threads, many store instances and many
 * processes sharing the file.
 *
 * <pre>{@code
 * OrderStore store = SqliteOrderStore.builder(Path.of("/var/lib/shop/orders.db")).build();
 * }</pre>
 *
 * <p>Algorithm, per claim, complete, fail or extend:
 *
 * <ol>
 *   <li>validate the arguments ({@link FencedOrderStore} does, before any I/O);
 *   <li>take this JVM's write lock on the file, shared by every store open on it, so this process's
 *       writers queue in memory (waiting up to {@link Builder#acquireTimeout acquireTimeout})
 *       instead of polling in SQLite's busy handler;
 *   <li>take a pooled connection and run {@code BEGIN IMMEDIATE}: SQLite's write lock on the file,
 *       waited for up to {@link Builder#busyTimeout busyTimeout} if another process holds it. From
 *       here until COMMIT no other writer, in any process, can change the file;
 *   <li>read the order's row and the clock, and decide with {@link
 *       org.fencekit.store.spi.OrderStateMachine}: the token presented must equal the row's current
 *       claim (fence and nonce), or the write is superseded;
 *   <li>in the same transaction, insert or update the row, or for a superseded complete insert the
 *       orphan ({@code ON CONFLICT DO NOTHING}, so a retried complete records it once);
 *   <li>COMMIT, which with {@code synchronous=FULL} is on disk when it returns; on any exception
 *       ROLLBACK, so nothing of the step lands.
 * </ol>
 *
 * {@link #get} and {@link #orphans} run one SELECT on any pooled connection without the lock: in
 * WAL mode a reader sees the last commit and neither blocks nor waits for writers. So do the
 * operator's listings and lookups ({@link org.fencekit.store.OrderStoreAdmin}), each a range scan
 * of a partial index made for it; a {@link #reconcile} is one conditional UPDATE under the write
 * lock.
 *
 * <p>Schema: the DDL is versioned ({@code db/migration/fencekit/sqlite/V1__fencekit_tables.sql},
 * {@code V2__fencekit_operations.sql} in this jar). At open the store reads the file's version and
 * brings an older file up to date in one transaction (or, built with {@link Builder#createSchema
 * createSchema(false)}, refuses naming the scripts to run); a newer one makes it refuse.
 *
 * <p>Durability: the file is in WAL mode. With {@link Synchronous#FULL} (the default) every commit
 * is synced to disk before it returns. {@link Synchronous#NORMAL} syncs only at checkpoints:
 * faster, and still consistent after a crash of the process, but a power loss or an operating
 * system crash can lose the last commits, and with them a claim or a settle the caller was told had
 * landed.
 *
 * <p>Failures: a call on a closed store throws {@link IllegalStateException}. SQLite errors (the
 * file held by another process beyond busyTimeout, a full or failing disk, a file that cannot be
 * opened) throw {@link StoreUnavailableException} naming the file. For a write it says whether the
 * outcome is unknown: a failure before or during the transaction that was rolled back wrote
 * nothing; so did a COMMIT that failed with an error after which SQLite ends or keeps the
 * transaction uncommitted ({@code SQLITE_FULL}, {@code SQLITE_BUSY}, ...: the transaction is then
 * checked to be over or rolled back); a COMMIT that failed with an I/O error (its WAL frames may be
 * on disk), or a rollback that failed too, leaves the outcome unknown, and the same call may be
 * retried. Before every write the store checks that the file at its path is still the one it opened
 * and can be written: a file deleted or replaced underneath, or made read-only or immutable, fails
 * the write with {@link StoreUnavailableException} (nothing written) naming which. {@link #builder
 * builder().build()} refuses a file it cannot write and, unless {@link Builder#quickCheck
 * quickCheck(false)}, a damaged one. Writers of other processes meet in SQLite's busy handler,
 * which polls: under sustained writes from this process, a writer in another process can wait up to
 * busyTimeout and then fail.
 *
 * <p>The file must be on a local file system (WAL needs shared memory between the processes that
 * open it; network file systems do not provide it).
 */
public final class SqliteOrderStore extends FencedAdminOrderStore {

  /** How SQLite syncs commits to disk. */
  public enum Synchronous {
    /** Every commit is on disk when it returns. The default; survives a power loss. */
    FULL,
    /**
     * The WAL is synced at checkpoints only: commits are faster and the file stays consistent, but
     * a power loss or an operating system crash can lose the last commits.
     */
    NORMAL
  }

  private final SqliteStorage storage;
  private final Path file;

  private SqliteOrderStore(SqliteStorage storage, Clock clock, Path file) {
    super(storage, clock);
    this.storage = storage;
    this.file = file;
  }

  /**
   * A builder for a store on {@code file}, created with its tables if missing. The file's directory
   * must exist.
   *
   * @param file the database file, as the user gives it; relative paths resolve against the working
   *     directory
   */
  public static Builder builder(Path file) {
    return new Builder(Objects.requireNonNull(file, "file"));
  }

  /**
   * Closes every connection, after waiting for a write of this JVM in flight on the file. Later
   * calls throw {@link IllegalStateException}. Idempotent. The file and its orders stay.
   */
  @Override
  public void close() {
    super.close();
  }

  /** The database file, as it was given to {@link #builder}. */
  public Path file() {
    return file;
  }

  /** The storage underneath (for tests in this package). */
  SqliteStorage storage() {
    return storage;
  }

  @Override
  public String toString() {
    return "SqliteOrderStore[" + file + "]";
  }

  /**
   * Configures a {@link SqliteOrderStore}. Every property has a default; {@link #build()} checks
   * them all and names the first bad one, before the file is touched. The clock, the table names
   * and {@link #createSchema} are the SQL stores' shared settings ({@link JdbcStoreBuilder}).
   */
  public static final class Builder extends JdbcStoreBuilder<Builder> {

    /** The default {@link #connections(int)}. */
    public static final int DEFAULT_CONNECTIONS = 4;

    /** The most {@link #connections(int)} allowed. */
    public static final int MAX_CONNECTIONS = 64;

    /** The default {@link #busyTimeout(Duration)}. */
    public static final Duration DEFAULT_BUSY_TIMEOUT = Duration.ofSeconds(5);

    /** The default {@link #acquireTimeout(Duration)}. */
    public static final Duration DEFAULT_ACQUIRE_TIMEOUT = Duration.ofSeconds(30);

    private final Path file;
    private Synchronous synchronous = Synchronous.FULL;
    private int connections = DEFAULT_CONNECTIONS;
    private Duration busyTimeout = DEFAULT_BUSY_TIMEOUT;
    private Duration acquireTimeout = DEFAULT_ACQUIRE_TIMEOUT;
    private boolean quickCheck = true;

    private Builder(Path file) {
      super(true);
      this.file = file;
    }

    /**
     * How commits are synced to disk. Default {@link Synchronous#FULL}; see {@link Synchronous} for
     * what {@link Synchronous#NORMAL} may lose.
     *
     * @return this builder
     */
    public Builder synchronous(Synchronous synchronous) {
      this.synchronous = synchronous;
      return this;
    }

    /**
     * How many connections the store keeps open, from 1 to {@value #MAX_CONNECTIONS}. Default
     * {@value #DEFAULT_CONNECTIONS}. Writes use one at a time (SQLite has one writer per file); the
     * others serve reads alongside.
     *
     * @return this builder
     */
    public Builder connections(int connections) {
      this.connections = connections;
      return this;
    }

    /**
     * How long a write waits for another process holding the file's write lock (SQLite's {@code
     * busy_timeout}, set on every connection) before failing with {@link
     * StoreUnavailableException}. From 1 ms to {@link Integer#MAX_VALUE} ms. Default 5 s.
     *
     * @return this builder
     */
    public Builder busyTimeout(Duration busyTimeout) {
      this.busyTimeout = busyTimeout;
      return this;
    }

    /**
     * How long an operation waits inside this JVM before failing with {@link
     * StoreUnavailableException}: a write for the writes to the same file queued ahead of it, any
     * operation for a free pooled connection. At least 1 ms. Default 30 s.
     *
     * @return this builder
     */
    public Builder acquireTimeout(Duration acquireTimeout) {
      this.acquireTimeout = acquireTimeout;
      return this;
    }

    /**
     * Whether {@link #build()} runs {@code PRAGMA quick_check} on the file and refuses a damaged
     * one, instead of failing later on the orders it damaged; default true. The check reads the
     * whole file (about a second per few hundred MB): turn it off for a very large file whose
     * integrity you check otherwise.
     *
     * @return this builder
     */
    public Builder quickCheck(boolean quickCheck) {
      this.quickCheck = quickCheck;
      return this;
    }

    /**
     * Checks every property, then opens the file (creating it and its tables if missing), switches
     * it to WAL and opens the connections.
     *
     * @throws NullPointerException if a property is null, naming it
     * @throws IllegalArgumentException if a property is out of range, naming it; nothing is created
     *     on disk then
     * @throws StoreUnavailableException if the file cannot be opened or written (a read-only file
     *     is refused here, not at the first write), or {@code PRAGMA quick_check} finds it damaged
     * @throws IllegalStateException if the tables exist with another shape, the schema version is
     *     newer than this store's (or older, with {@code createSchema(false)}), or the file system
     *     cannot do WAL
     */
    public SqliteOrderStore build() {
      Clock clock = checkedClock();
      Tables tables = checkedTables("SQLite names ignore case");
      Validate.notNull("synchronous", synchronous);
      if (connections < 1 || connections > MAX_CONNECTIONS) {
        throw new IllegalArgumentException(
            "connections must be from 1 to %s, got %s; %s suits most uses"
                .formatted(MAX_CONNECTIONS, connections, DEFAULT_CONNECTIONS));
      }
      Validate.notNull("busyTimeout", busyTimeout);
      if (busyTimeout.compareTo(Duration.ofMillis(1)) < 0
          || busyTimeout.compareTo(Duration.ofMillis(Integer.MAX_VALUE)) > 0) {
        throw new IllegalArgumentException(
            "busyTimeout must be from 1 ms to " + Integer.MAX_VALUE + " ms, got " + busyTimeout);
      }
      Validate.notNull("acquireTimeout", acquireTimeout);
      if (acquireTimeout.compareTo(Duration.ofMillis(1)) < 0) {
        throw new IllegalArgumentException(
            "acquireTimeout must be at least 1 ms, got " + acquireTimeout);
      }
      SqliteStorage.Settings settings =
          new SqliteStorage.Settings(
              checkFile(file),
              tables.orders(),
              tables.orphans(),
              synchronous,
              connections,
              busyTimeout,
              acquireTimeout,
              quickCheck,
              createsSchema());
      return new SqliteOrderStore(SqliteStorage.open(settings), clock, file);
    }

    /** A plain identifier not starting with {@code sqlite_}, which SQLite reserves. */
    @Override
    protected void checkTable(String property, String name) {
      super.checkTable(property, name);
      if (name.toLowerCase(Locale.ROOT).startsWith("sqlite_")) {
        throw new IllegalArgumentException(
            property + " must not start with 'sqlite_', which SQLite reserves, got '" + name + "'");
      }
    }

    private static Path checkFile(Path file) {
      Path absolute = file.toAbsolutePath().normalize();
      if (absolute.toString().indexOf('?') >= 0) {
        throw new IllegalArgumentException(
            "file must not contain '?', which the SQLite driver reads as the start of its"
                + " parameters, got "
                + file);
      }
      if (Files.isDirectory(absolute)) {
        throw new IllegalArgumentException(
            "file must be a database file, got the directory " + file);
      }
      Path directory = absolute.getParent();
      if (directory == null || !Files.isDirectory(directory)) {
        throw new IllegalArgumentException(
            "file must be in an existing directory, but %s does not exist (file %s); create it first"
                .formatted(directory, file));
      }
      return absolute;
    }
  }
}
