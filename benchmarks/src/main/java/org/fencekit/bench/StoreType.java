package org.fencekit.bench;

import com.zaxxer.hikari.HikariDataSource;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Clock;
import java.util.Arrays;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.fencekit.store.OrderStore;
import org.fencekit.store.etcd.EtcdOrderStore;
import org.fencekit.store.memory.MemoryOrderStore;
import org.fencekit.store.mysql.MysqlOrderStore;
import org.fencekit.store.postgres.PostgresOrderStore;
import org.fencekit.store.redis.RedisOrderStore;
import org.fencekit.store.sqlite.SqliteOrderStore;

/**
 * One constant per store configuration the benchmarks compare, each knowing how to open its store.
 * The embedded stores are always available; a server store is available when its {@link Server}'s
 * variable is set. Every store writes only inside the {@link Namespace} it is opened in. {@link
 * #label()} is the one spelling of a store's name, in tables, messages and {@code --only}.
 */
public enum StoreType implements Labelled {

  /** The in-memory reference store. */
  MEMORY(null, (clock, namespace, url, threads) -> new MemoryOrderStore(clock)),

  /** SQLite on a fresh file, synchronous=FULL (the default: every commit is on disk). */
  SQLITE(
      null,
      (clock, namespace, url, threads) ->
          SqliteOrderStore.builder(namespace.sqliteFile("sqlite")).clock(clock).build()),

  /**
   * SQLite on a fresh file, synchronous=NORMAL: WAL commits without an fsync each, so the last
   * commits can be lost on power loss (the store's documented option).
   */
  SQLITE_NORMAL(
      null,
      (clock, namespace, url, threads) ->
          SqliteOrderStore.builder(namespace.sqliteFile("sqlite-normal"))
              .synchronous(SqliteOrderStore.Synchronous.NORMAL)
              .clock(clock)
              .build()),

  /**
   * PostgreSQL built from a URL, as by default but for the pool's size: the single-statement fast
   * path, falling back to the locking transaction on a miss.
   */
  POSTGRES(
      Server.POSTGRES,
      (clock, namespace, url, threads) -> postgres(clock, namespace, url, threads).build()),

  /**
   * PostgreSQL as {@link #POSTGRES}, built {@code pgBouncerBefore121(true)}: no server-side
   * prepared statements, the price of working behind PgBouncer before 1.21 in transaction mode.
   */
  POSTGRES_PGBOUNCER(
      Server.POSTGRES,
      (clock, namespace, url, threads) ->
          postgres(clock, namespace, url, threads).pgBouncerBefore121(true).build()),

  /**
   * PostgreSQL, fast path, built {@code dataSource(...)} over the DataSource the lock libraries run
   * on ({@link Peer#dataSource}: HikariCP and the driver at their defaults, a connection per
   * thread), so that it and ShedLock's JDBC provider are compared over the same pool.
   */
  POSTGRES_DATASOURCE(
      Server.POSTGRES,
      (clock, namespace, url, threads) ->
          overPeerDataSource(
              url, threads, pool -> postgres(clock, namespace).dataSource(pool).build())),

  /** PostgreSQL with locking transactions only ({@code singleStatementFastPath(false)}). */
  POSTGRES_LOCKING(
      Server.POSTGRES,
      (clock, namespace, url, threads) ->
          postgres(clock, namespace, url, threads).singleStatementFastPath(false).build()),

  /**
   * MySQL or MariaDB built from a URL, as by default but for the pool's size (its own HikariCP pool
   * at READ COMMITTED): the single-statement first claim and complete, falling back to the locking
   * transaction on a miss.
   */
  MYSQL(
      Server.MYSQL,
      (clock, namespace, url, threads) ->
          MysqlOrderStore.builder()
              .jdbcUrl(namespace.mysqlDatabase(url))
              .maximumPoolSize(threads)
              .createSchema(true)
              .clock(clock)
              .build()),

  /**
   * MySQL as {@link #MYSQL}, built {@code dataSource(...)} over the DataSource ShedLock's JDBC
   * provider runs on ({@link Peer#dataSource}: HikariCP and the driver at their defaults, so
   * REPEATABLE READ, which the store's README allows), so that the two are compared over the same
   * pool.
   */
  MYSQL_DATASOURCE(
      Server.MYSQL,
      (clock, namespace, url, threads) ->
          overPeerDataSource(
              namespace.mysqlDatabase(url),
              threads,
              pool ->
                  MysqlOrderStore.builder()
                      .dataSource(pool)
                      .createSchema(true)
                      .clock(clock)
                      .build())),

  /** A single Redis node. */
  REDIS(
      Server.REDIS,
      (clock, namespace, url, threads) ->
          RedisOrderStore.builder().url(url).keyPrefix(namespace.keyPrefix()).clock(clock).build()),

  /** A Redis Cluster, reached through its seed nodes. */
  REDIS_CLUSTER(
      Server.REDIS_CLUSTER,
      (clock, namespace, nodes, threads) ->
          RedisOrderStore.builder()
              .clusterNodes(nodes)
              .keyPrefix(namespace.keyPrefix())
              .clock(clock)
              .build()),

  /** An etcd cluster, by all its members. */
  ETCD(
      Server.ETCD,
      (clock, namespace, endpoints, threads) ->
          EtcdOrderStore.builder()
              .endpoints(endpoints)
              .keyPrefix(namespace.keyPrefix())
              .clock(clock)
              .build());

  /** How a type opens its store, given its server's checked setting (null for an embedded one). */
  private interface Opener {
    OrderStore open(Clock clock, Namespace namespace, String setting, int threads);
  }

  private final Server server;
  private final Opener opener;

  StoreType(Server server, Opener opener) {
    this.server = server;
    this.opener = opener;
  }

  /**
   * Opens a store of this type on {@code clock} for {@code threads} benchmark threads, writing only
   * inside {@code namespace}; the caller closes it. A SQL server store has one connection per
   * thread, as the peers' DataSource has: the pool it builds from a URL is sized so (as its README
   * says to size it for the callers), a pool of the caller's likewise; the others take no notice of
   * {@code threads}.
   */
  OrderStore open(Clock clock, Namespace namespace, Map<String, String> env, int threads) {
    return opener.open(clock, namespace, server == null ? null : setting(env), threads);
  }

  /**
   * A store {@code build} builds over a {@link Peer#dataSource} of {@code threads} connections to
   * {@code jdbcUrl}, closing the pool when the store is closed, or at once if the store fails to
   * build.
   */
  static OrderStore overPeerDataSource(
      String jdbcUrl, int threads, Function<HikariDataSource, OrderStore> build) {
    HikariDataSource pool = Peer.dataSource(jdbcUrl, threads);
    OrderStore store;
    try {
      store = build.apply(pool);
    } catch (RuntimeException e) {
      pool.close();
      throw e;
    }
    // the store leaves a user's pool open, as it should: this proxy closes it after the store
    InvocationHandler closing =
        (proxy, method, args) -> {
          try {
            return method.invoke(store, args);
          } catch (InvocationTargetException e) {
            throw e.getCause();
          } finally {
            if (method.getName().equals("close") && method.getParameterCount() == 0) {
              pool.close();
            }
          }
        };
    return (OrderStore)
        Proxy.newProxyInstance(
            OrderStore.class.getClassLoader(), new Class<?>[] {OrderStore.class}, closing);
  }

  /**
   * A PostgreSQL store's builder in {@code namespace}'s schema, as a user's store is built; the
   * caller gives it a URL or a DataSource.
   */
  static PostgresOrderStore.Builder postgres(Clock clock, Namespace namespace) {
    return PostgresOrderStore.builder().schema(namespace.schema()).createSchema(true).clock(clock);
  }

  /**
   * {@link #postgres}'s builder from {@code url}, its pool one connection per thread as the peers'
   * DataSource has.
   */
  private static PostgresOrderStore.Builder postgres(
      Clock clock, Namespace namespace, String url, int threads) {
    return postgres(clock, namespace).jdbcUrl(url).maximumPoolSize(threads);
  }

  /** The server this type needs, or null for an embedded store. */
  Server server() {
    return server;
  }

  /**
   * Whether this type can run with {@code env}: embedded, or its server's variable is set.
   *
   * @throws IllegalArgumentException if the variable is set but malformed (naming it)
   */
  boolean available(Map<String, String> env) {
    return server == null || server.lookup(env).isPresent();
  }

  /** Why this type is left out, naming the variable that would include it and a good value. */
  String absence() {
    return label() + ": left out, " + unset();
  }

  /** That this type's variable is not set, and a good value for it. */
  String unset() {
    return "%1$s is not set (e.g. %1$s=%2$s)".formatted(server.variable(), server.example());
  }

  /** The checked setting of this type's server; fails naming the variable if it is unset. */
  String setting(Map<String, String> env) {
    return server.lookup(env).orElseThrow(() -> new IllegalStateException(absence()));
  }

  /** Every label, comma-separated, for usage and messages. */
  static String labels() {
    return Arrays.stream(values()).map(StoreType::label).collect(Collectors.joining(","));
  }
}
