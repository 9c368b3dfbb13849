package org.fencekit.store.postgres;

import org.fencekit.store.OrderStore;
import org.fencekit.tck.OrderStoreTck;
import org.fencekit.tck.TestClock;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The whole TCK against a real PostgreSQL (see {@link PostgresTestServer}), in four configurations:
 * a HikariCP pool the store builds from a JDBC URL and an unpooled DataSource of the user's, each
 * with the single-statement fast path (the default) and with locking transactions only; and a
 * fast-path store whose peer decides only in locking transactions, so the two ways race each other
 * over the same orders. The peer store is always a second store with its own connections. All of it
 * runs in one schema with a random name, dropped afterwards.
 */
class PostgresOrderStoreTckTest {

  private static PostgresTestServer.Schema schema;

  @BeforeAll
  static void createSchema() {
    schema = PostgresTestServer.available() ? PostgresTestServer.newSchema() : null;
  }

  @AfterAll
  static void dropSchema() {
    if (schema != null) {
      schema.close();
    }
  }

  private static OrderStore pooled(TestClock clock, boolean createSchema, boolean fastPath) {
    String url = PostgresTestServer.jdbcUrl(); // skips the test if there is no server
    return PostgresOrderStore.builder()
        .jdbcUrl(url)
        .schema(schema.name())
        .maximumPoolSize(4)
        .createSchema(createSchema)
        .singleStatementFastPath(fastPath)
        .clock(clock)
        .build();
  }

  /**
   * The user's DataSource, unpooled: every call opens a connection (a server process) of its own,
   * so no call can lean on session state left by another.
   */
  private static OrderStore unpooled(TestClock clock, boolean createSchema, boolean fastPath) {
    String url = PostgresTestServer.jdbcUrl(); // skips the test if there is no server
    PGSimpleDataSource dataSource = new PGSimpleDataSource();
    dataSource.setURL(url);
    dataSource.setPrepareThreshold(0);
    return PostgresOrderStore.builder()
        .dataSource(dataSource)
        .schema(schema.name())
        .createSchema(createSchema)
        .singleStatementFastPath(fastPath)
        .clock(clock)
        .build();
  }

  /** The store owns a HikariCP pool built from the URL; the peer has a pool of its own. */
  @Nested
  class OwnedPool extends OrderStoreTck {

    @Override
    protected OrderStore newStore(TestClock clock) {
      return pooled(clock, true, true);
    }

    @Override
    protected OrderStore newPeerStore(TestClock clock) {
      return pooled(clock, false, true);
    }
  }

  /** As {@link OwnedPool}, with the fast path off: every call is a locking transaction. */
  @Nested
  class OwnedPoolLocking extends OrderStoreTck {

    @Override
    protected OrderStore newStore(TestClock clock) {
      return pooled(clock, true, false);
    }

    @Override
    protected OrderStore newPeerStore(TestClock clock) {
      return pooled(clock, false, false);
    }
  }

  /** The fast path decides for the store, locking transactions for its peer. */
  @Nested
  class FastPathAgainstLocking extends OrderStoreTck {

    @Override
    protected OrderStore newStore(TestClock clock) {
      return pooled(clock, true, true);
    }

    @Override
    protected OrderStore newPeerStore(TestClock clock) {
      return pooled(clock, false, false);
    }
  }

  /** An unpooled DataSource of the user's, fast path on. */
  @Nested
  class UnpooledDataSource extends OrderStoreTck {

    /** A quarter of the default: a connection per call costs a server process per call. */
    @Override
    protected int stressOrders() {
      return 60;
    }

    @Override
    protected OrderStore newStore(TestClock clock) {
      return unpooled(clock, true, true);
    }

    @Override
    protected OrderStore newPeerStore(TestClock clock) {
      return unpooled(clock, false, true);
    }
  }

  /** An unpooled DataSource of the user's, fast path off. */
  @Nested
  class UnpooledDataSourceLocking extends OrderStoreTck {

    /** A quarter of the default: a connection per call costs a server process per call. */
    @Override
    protected int stressOrders() {
      return 60;
    }

    @Override
    protected OrderStore newStore(TestClock clock) {
      return unpooled(clock, true, false);
    }

    @Override
    protected OrderStore newPeerStore(TestClock clock) {
      return unpooled(clock, false, false);
    }
  }
}
