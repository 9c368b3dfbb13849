package org.fencekit.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.Lock;
import java.net.URI;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.provider.jdbc.JdbcLockProvider;
import net.javacrumbs.shedlock.provider.redis.jedis4.JedisLockProvider;
import org.redisson.Redisson;
import org.redisson.api.RFencedLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.util.JedisURIHelper;

/**
 * The lock libraries people use today, measured beside the stores on the same servers: a lock and
 * an unlock per operation, each thread on a lock of its own, against a store's claim and complete
 * of a fresh order. {@link #of} says which peers a store has.
 */
public enum Peer implements Labelled {

  /**
   * ShedLock's {@code JdbcLockProvider} on PostgreSQL, over {@link #dataSource}: an UPDATE to lock
   * and one to unlock, each committed alone (the first lock of a name is an INSERT).
   */
  SHEDLOCK_JDBC(
      Server.POSTGRES,
      List.of(StoreType.POSTGRES, StoreType.POSTGRES_PGBOUNCER, StoreType.POSTGRES_DATASOURCE)),
  /**
   * ShedLock's {@code JdbcLockProvider} on MySQL, over {@link #dataSource}, its {@code shedlock}
   * table (as ShedLock documents it for MySQL) in the trial's own database: the same two
   * statements.
   */
  SHEDLOCK_JDBC_MYSQL(Server.MYSQL, List.of(StoreType.MYSQL, StoreType.MYSQL_DATASOURCE)),
  /**
   * ShedLock's {@code JedisLockProvider} on one Redis node: {@code SET NX PX} to lock, {@code DEL}
   * to unlock (no owner check), on the Jedis client the store uses, pooled as the store's is.
   */
  SHEDLOCK_REDIS(Server.REDIS, List.of(StoreType.REDIS)),
  /** The same on the Redis Cluster. */
  SHEDLOCK_REDIS_CLUSTER(Server.REDIS_CLUSTER, List.of(StoreType.REDIS_CLUSTER)),
  /**
   * Redisson's {@code RFencedLock} on one Redis node, at Redisson's defaults: {@code
   * lockAndGetToken} with a lease, then {@code unlock}; the one peer that hands out a fencing token
   * (which the protected resource must then check itself).
   */
  REDISSON_FENCED(Server.REDIS, List.of(StoreType.REDIS)),
  /** The same on the Redis Cluster. */
  REDISSON_FENCED_CLUSTER(Server.REDIS_CLUSTER, List.of(StoreType.REDIS_CLUSTER)),
  /**
   * etcd's own lock service through jetcd ({@code Lock.lock} with a lease, then {@code unlock}):
   * its lock key's revision would make a fencing token, but checking it is left to the caller.
   */
  ETCD_LOCK(Server.ETCD, List.of(StoreType.ETCD));

  /** The lease each lock is taken with, as long as a claim's in the benchmarks. */
  static final Duration LEASE = ClaimCompleteBenchmark.LEASE;

  private final Server server;
  private final List<StoreType> stores;

  Peer(Server server, List<StoreType> stores) {
    this.server = server;
    this.stores = stores;
  }

  /** The server it runs on. */
  Server server() {
    return server;
  }

  /** The peers of {@code store}, in table order; none for the embedded stores. */
  static List<Peer> of(StoreType store) {
    return Arrays.stream(values()).filter(p -> p.stores.contains(store)).toList();
  }

  /**
   * The peers whose hot lock {@code store}'s hot order is measured beside ({@link HotLock}):
   * ShedLock's JDBC provider, for the PostgreSQL stores with a target for it.
   */
  static List<Peer> hotOf(StoreType store) {
    return Double.isNaN(Target.hot(store, SHEDLOCK_JDBC).minimum())
        ? List.of()
        : List.of(SHEDLOCK_JDBC);
  }

  /** What it does per operation, for the report. */
  String description() {
    return switch (this) {
      case SHEDLOCK_JDBC, SHEDLOCK_JDBC_MYSQL ->
          "ShedLock JdbcLockProvider: lock (UPDATE ... WHERE lock_until <= now) and unlock"
              + " (UPDATE lock_until), each an auto-commit statement, over HikariCP at its defaults"
              + " with one connection per thread and the driver at its defaults";
      case SHEDLOCK_REDIS, SHEDLOCK_REDIS_CLUSTER ->
          "ShedLock JedisLockProvider: SET NX PX to lock, DEL to unlock, on a Jedis client"
              + " pooled as the store's (32 connections)";
      case REDISSON_FENCED, REDISSON_FENCED_CLUSTER ->
          "Redisson RFencedLock at Redisson's defaults: lockAndGetToken(lease) then unlock,"
              + " two Lua scripts";
      case ETCD_LOCK ->
          "etcd's Lock service through jetcd at its defaults: lock(name, lease) then unlock(key),"
              + " one lease granted for the trial";
    };
  }

  /**
   * Opens the library for {@code threads} threads, its locks inside {@code namespace}; the caller
   * closes it.
   */
  PeerLock open(Namespace namespace, Map<String, String> env, int threads) {
    String setting =
        server
            .lookup(env)
            .orElseThrow(
                () ->
                    new IllegalStateException(
                        label() + ": left out, " + server.variable() + " is not set"));
    String schema = namespace.schema();
    return switch (this) {
      case SHEDLOCK_JDBC ->
          shedlockJdbc(
              setting,
              threads,
              schema + ".shedlock",
              "CREATE SCHEMA IF NOT EXISTS " + schema,
              "CREATE TABLE IF NOT EXISTS "
                  + schema
                  + ".shedlock (name VARCHAR(64) NOT NULL PRIMARY KEY,"
                  + " lock_until TIMESTAMP NOT NULL, locked_at TIMESTAMP NOT NULL,"
                  + " locked_by VARCHAR(255) NOT NULL)");
      case SHEDLOCK_JDBC_MYSQL ->
          shedlockJdbc(
              namespace.mysqlDatabase(setting),
              threads,
              "shedlock",
              "CREATE TABLE IF NOT EXISTS shedlock (name VARCHAR(64) NOT NULL PRIMARY KEY,"
                  + " lock_until TIMESTAMP(3) NOT NULL,"
                  + " locked_at TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),"
                  + " locked_by VARCHAR(255) NOT NULL)");
      case SHEDLOCK_REDIS -> shedlock(RawRedis.nodeClient(setting), namespace);
      case SHEDLOCK_REDIS_CLUSTER -> shedlock(RawRedis.clusterClient(setting), namespace);
      case REDISSON_FENCED -> redisson(nodeConfig(setting), namespace);
      case REDISSON_FENCED_CLUSTER -> redisson(clusterConfig(setting), namespace);
      case ETCD_LOCK -> etcdLock(setting, namespace);
    };
  }

  /**
   * The DataSource a lock library's user has: HikariCP at its defaults over the driver at its
   * defaults (PostgreSQL's: server-side prepared statements after five uses; MySQL Connector/J's:
   * client-side prepared statements, REPEATABLE READ; auto-commit on), {@code threads} connections
   * to {@code jdbcUrl}, one per benchmark thread; the caller closes it. ShedLock's {@code
   * JdbcLockProvider} runs on it, and so does the store built {@code dataSource(...)} over it
   * ({@link StoreType#POSTGRES_DATASOURCE}, {@link StoreType#MYSQL_DATASOURCE}), so the two are
   * compared over the same kind of pool.
   */
  static HikariDataSource dataSource(String jdbcUrl, int threads) {
    HikariConfig config = new HikariConfig();
    config.setPoolName("fencekit-bench-peer");
    config.setJdbcUrl(jdbcUrl);
    config.setMaximumPoolSize(threads);
    config.setMinimumIdle(threads);
    return new HikariDataSource(config);
  }

  /**
   * ShedLock's JDBC provider on {@code table}, which the statements {@code create} create, over a
   * {@link #dataSource} of {@code threads} connections to {@code jdbcUrl}.
   */
  private static PeerLock shedlockJdbc(
      String jdbcUrl, int threads, String table, String... create) {
    HikariDataSource pool = dataSource(jdbcUrl, threads);
    try (Connection c = pool.getConnection();
        Statement s = c.createStatement()) {
      for (String statement : create) {
        s.execute(statement);
      }
    } catch (SQLException e) {
      pool.close();
      throw new IllegalStateException(
          "could not create ShedLock's table " + table + ": " + e.getMessage(), e);
    }
    return new Shedlock(new JdbcLockProvider(pool, table), pool::close);
  }

  private static PeerLock shedlock(UnifiedJedis client, Namespace namespace) {
    String environment = namespace.keyPrefix().substring(0, namespace.keyPrefix().length() - 1);
    return new Shedlock(new JedisLockProvider(client, environment), client::close);
  }

  private static Config nodeConfig(String url) {
    URI uri = URI.create(url);
    Config config = new Config();
    var server =
        config
            .useSingleServer()
            .setAddress(uri.getScheme() + "://" + uri.getHost() + ":" + uri.getPort())
            .setDatabase(JedisURIHelper.getDBIndex(uri));
    if (JedisURIHelper.getPassword(uri) != null) {
      server.setPassword(JedisURIHelper.getPassword(uri));
      server.setUsername(JedisURIHelper.getUser(uri));
    }
    return config;
  }

  private static Config clusterConfig(String nodes) {
    Config config = new Config();
    var cluster = config.useClusterServers();
    for (String node : nodes.split(",")) {
      cluster.addNodeAddress("redis://" + node.trim());
    }
    return config;
  }

  /** etcd's lock service: each thread locks and unlocks a name of its own under one lease. */
  private static PeerLock etcdLock(String endpoints, Namespace namespace) {
    Client client = RawEtcd.client(endpoints);
    long lease;
    try {
      // bounded: an etcd that does not answer fails the trial instead of hanging the run
      lease = client.getLeaseClient().grant(3600).get(30, TimeUnit.SECONDS).getID();
    } catch (InterruptedException | ExecutionException | TimeoutException e) {
      client.close();
      throw new IllegalStateException("etcd granted no lease: " + e, e);
    }
    Lock locks = client.getLockClient();
    String prefix = namespace.keyPrefix();
    return new PeerLock() {
      @Override
      public Session session(int thread) {
        ByteSequence name = RawEtcd.bytes(prefix + "lock-" + thread);
        return () -> {
          try {
            locks.unlock(locks.lock(name, lease).get().getKey()).get();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
          } catch (ExecutionException e) {
            throw new IllegalStateException(name + " was not acquired: " + e.getCause(), e);
          }
        };
      }

      @Override
      public Attempt hot() {
        throw new UnsupportedOperationException("etcd's lock service is not measured hot");
      }

      @Override
      public void close() {
        try {
          client.getLeaseClient().revoke(lease).get();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        } catch (ExecutionException e) {
          // the lease runs out by itself
        } finally {
          client.close();
        }
      }
    };
  }

  private static PeerLock redisson(Config config, Namespace namespace) {
    RedissonClient client = Redisson.create(config);
    String prefix = namespace.keyPrefix();
    return new PeerLock() {
      @Override
      public Session session(int thread) {
        RFencedLock lock = client.getFencedLock(prefix + "lock-" + thread);
        return () -> {
          Long token = lock.lockAndGetToken(LEASE.toMillis(), TimeUnit.MILLISECONDS);
          if (token == null) {
            throw new IllegalStateException(lock.getName() + " was not acquired");
          }
          lock.unlock();
        };
      }

      @Override
      public Attempt hot() {
        RFencedLock lock = client.getFencedLock(prefix + "hot");
        return () -> {
          Long token = lock.tryLockAndGetToken(0, LEASE.toMillis(), TimeUnit.MILLISECONDS);
          if (token == null) {
            return false;
          }
          lock.unlock();
          return true;
        };
      }

      @Override
      public void close() {
        try {
          // the lock hashes are gone after unlock; the token counters stay, outside the prefix
          client.getKeys().deleteByPattern("redisson_lock__token:*" + prefix + "*");
        } finally {
          client.shutdown();
        }
      }
    };
  }

  /** A ShedLock provider, each thread locking and unlocking a name of its own. */
  private record Shedlock(LockProvider provider, Runnable closer) implements PeerLock {

    @Override
    public Session session(int thread) {
      String name = "lock-" + thread;
      return () -> {
        SimpleLock lock =
            provider
                .lock(new LockConfiguration(ClockProvider.now(), name, LEASE, Duration.ZERO))
                .orElseThrow(() -> new IllegalStateException(name + " was not acquired"));
        lock.unlock();
      };
    }

    @Override
    public Attempt hot() {
      String name = "lock-hot";
      return () -> {
        Optional<SimpleLock> lock =
            provider.lock(new LockConfiguration(ClockProvider.now(), name, LEASE, Duration.ZERO));
        lock.ifPresent(SimpleLock::unlock);
        return lock.isPresent();
      };
    }

    @Override
    public void close() {
      closer.run();
    }
  }
}
