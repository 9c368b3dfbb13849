package org.fencekit.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;

/**
 * The DataSource a lock library's user has: HikariCP at its defaults over the driver at its
 * defaults (PostgreSQL's: server-side prepared statements after five uses; MySQL Connector/J's:
 * client-side prepared statements, REPEATABLE READ; auto-commit on), one connection per benchmark
 * thread. ShedLock's {@code JdbcLockProvider} runs on it, and so does the store built {@code
 * dataSource(...)} over it ({@link StoreType#POSTGRES_DATASOURCE}, {@link
 * StoreType#MYSQL_DATASOURCE}), so the two are compared over the same kind of pool.
 */
final class PeerDataSource {

  private PeerDataSource() {}

  /** A pool of {@code threads} connections to {@code jdbcUrl}; the caller closes it. */
  static HikariDataSource open(String jdbcUrl, int threads) {
    HikariConfig config = new HikariConfig();
    config.setPoolName("fencekit-bench-peer");
    config.setJdbcUrl(jdbcUrl);
    config.setMaximumPoolSize(threads);
    config.setMinimumIdle(threads);
    return new HikariDataSource(config);
  }
}
