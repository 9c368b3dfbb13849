package org.fencekit.store.postgres;

import org.fencekit.store.jdbc.StoreTestSupport;
import org.fencekit.tck.TestClock;
import org.fencekit.testsupport.TestPostgres;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * What the store tests beside the TCK share beyond {@link StoreTestSupport} (a fresh {@link
 * TestClock} per test, stores and connections closed after each test, helpers to make orders): a
 * schema of their own on the test server (made before a class's tests, dropped after them; test
 * classes run one at a time, JUnit's default).
 */
abstract class PostgresStoreTestSupport extends StoreTestSupport {

  /** Each test class's own schema; every test is skipped (or fails) without a server. */
  @RegisterExtension static final TestPostgres.ClassSchema schema = TestPostgres.schemaPerClass();

  /** A store with its own pool of two in this class's schema, on the test clock. */
  PostgresOrderStore.Builder pooled() {
    return PostgresOrderStore.builder()
        .jdbcUrl(TestPostgres.jdbcUrl())
        .maximumPoolSize(2)
        .schema(schema.name())
        .createSchema(true)
        .clock(clock);
  }

  /**
   * A store over an unpooled DataSource whose sessions run SERIALIZABLE ({@code
   * default_transaction_isolation}), in this class's schema, on the test clock.
   */
  PostgresOrderStore.Builder serializable() {
    PGSimpleDataSource serializable = simpleDataSource();
    serializable.setOptions("-c default_transaction_isolation=serializable");
    return PostgresOrderStore.builder()
        .dataSource(serializable)
        .schema(schema.name())
        .createSchema(true)
        .clock(clock);
  }

  PostgresOrderStore store(PostgresOrderStore.Builder builder) {
    return track(builder.build());
  }

  static PGSimpleDataSource simpleDataSource() {
    PGSimpleDataSource dataSource = new PGSimpleDataSource();
    dataSource.setURL(TestPostgres.jdbcUrl());
    dataSource.setPrepareThreshold(0);
    return dataSource;
  }
}
