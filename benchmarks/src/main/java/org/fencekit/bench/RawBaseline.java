package org.fencekit.bench;

import java.util.List;
import java.util.Map;
import org.fencekit.store.sqlite.SqliteOrderStore;

/**
 * One raw baseline per backend: the work of {@link ClaimCompleteBenchmark} through the bare driver,
 * so each store's overhead is a ratio measured side by side. Each names the store configuration it
 * is the baseline of, and is available when that store is.
 */
public enum RawBaseline implements Labelled {

  /** {@link java.util.concurrent.ConcurrentHashMap#compute}, the memory store's atomic step. */
  MEMORY_MAP(StoreType.MEMORY),
  /** The SQLite store's statements through bare JDBC, synchronous=FULL. */
  SQLITE_JDBC(StoreType.SQLITE),
  /** The SQLite store's statements through bare JDBC, synchronous=NORMAL. */
  SQLITE_NORMAL_JDBC(StoreType.SQLITE_NORMAL),
  /**
   * The PostgreSQL store's single statements (its fast path) through bare JDBC: the baseline of the
   * store built from a URL (with and without PgBouncer compatibility) and of the one built over the
   * peers' DataSource.
   */
  POSTGRES_SINGLE_JDBC(
      StoreType.POSTGRES, StoreType.POSTGRES_DATASOURCE, StoreType.POSTGRES_PGBOUNCER),
  /** The PostgreSQL store's locking transactions through bare JDBC. */
  POSTGRES_LOCKING_JDBC(StoreType.POSTGRES_LOCKING),
  /**
   * The MySQL store's single statements (its fast path) through bare JDBC: the baseline of the
   * store built from a URL and of the one built over the peer's DataSource.
   */
  MYSQL_SINGLE_JDBC(StoreType.MYSQL, StoreType.MYSQL_DATASOURCE),
  /** The Redis store's scripts through Jedis EVALSHA, single node. */
  REDIS_EVALSHA(StoreType.REDIS),
  /** The Redis store's scripts through Jedis EVALSHA, on the cluster. */
  REDIS_CLUSTER_EVALSHA(StoreType.REDIS_CLUSTER),
  /** The etcd store's reads and transactions through bare jetcd. */
  ETCD_JETCD(StoreType.ETCD);

  private final List<StoreType> stores;

  RawBaseline(StoreType... stores) {
    this.stores = List.of(stores);
  }

  /** The store configuration this is the baseline of (the first, when there are several). */
  StoreType store() {
    return stores.get(0);
  }

  /** Every store configuration this is the baseline of. */
  List<StoreType> stores() {
    return stores;
  }

  /** The baseline of {@code store}: each store has exactly one. */
  static RawBaseline of(StoreType store) {
    for (RawBaseline b : values()) {
      if (b.stores.contains(store)) {
        return b;
      }
    }
    throw new AssertionError("no raw baseline for " + store.label());
  }

  /** Opens the driver, writing only inside {@code namespace}; the caller closes it. */
  RawDriver open(Namespace namespace, Map<String, String> env) {
    return switch (this) {
      case MEMORY_MAP -> new RawMemory();
      case SQLITE_JDBC -> RawJdbc.sqlite(SqliteOrderStore.Synchronous.FULL, namespace);
      case SQLITE_NORMAL_JDBC -> RawJdbc.sqlite(SqliteOrderStore.Synchronous.NORMAL, namespace);
      case POSTGRES_LOCKING_JDBC -> RawJdbc.postgres(store().setting(env), namespace, false);
      case POSTGRES_SINGLE_JDBC -> RawJdbc.postgres(store().setting(env), namespace, true);
      case MYSQL_SINGLE_JDBC -> RawJdbc.mysql(store().setting(env), namespace);
      case REDIS_EVALSHA ->
          new RawRedis(RawRedis.nodeClient(store().setting(env)), namespace, false);
      case REDIS_CLUSTER_EVALSHA ->
          new RawRedis(RawRedis.clusterClient(store().setting(env)), namespace, true);
      case ETCD_JETCD -> new RawEtcd(store().setting(env), namespace);
    };
  }

  /** What the baseline sends, for the report. */
  String description() {
    return switch (this) {
      case MEMORY_MAP ->
          "ConcurrentHashMap.compute creating the order, then compute comparing the nonce and settling";
      case SQLITE_JDBC, SQLITE_NORMAL_JDBC ->
          "the store's select-order.sql, insert-order.sql and update-order.sql, prepared once per"
              + " connection, in BEGIN IMMEDIATE transactions behind one process-wide lock, a connection per thread";
      case POSTGRES_LOCKING_JDBC ->
          "the store's lock-order.sql (SELECT ... FOR UPDATE), insert-order.sql and update-order.sql in"
              + " two transactions, a connection per thread, driver defaults (server-side prepared statements)";
      case POSTGRES_SINGLE_JDBC ->
          "the store's fast-path statements in autocommit: insert-order.sql (INSERT ... ON CONFLICT DO"
              + " NOTHING) to claim and complete-fast.sql (UPDATE ... WHERE fence and nonce match) to complete,"
              + " a connection per thread, driver defaults";
      case MYSQL_SINGLE_JDBC ->
          "the store's fast-path statements in autocommit: insert-order.sql (a plain INSERT) to claim,"
              + " complete-fast.sql (UPDATE ... WHERE fence and nonce match, its update count) to"
              + " complete, a connection per thread at READ COMMITTED";
      case REDIS_EVALSHA, REDIS_CLUSTER_EVALSHA ->
          "EVALSHA of the store's claim.lua and complete.lua with the same keys and arguments, a pool of"
              + " 32 connections";
      case ETCD_JETCD ->
          "the store's round trips through bare jetcd at its defaults: a linearizable get, then a Txn"
              + " creating the order with its claims index key (create_revision == 0); a Txn comparing"
              + " the mod_revision the claim wrote that settles it and deletes the index key";
    };
  }
}
