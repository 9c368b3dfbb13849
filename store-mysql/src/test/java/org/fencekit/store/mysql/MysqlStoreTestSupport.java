package org.fencekit.store.mysql;

import org.fencekit.store.jdbc.StoreTestSupport;
import org.fencekit.tck.TestClock;
import org.fencekit.testsupport.TestMysql;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What the store tests beside the TCK share beyond {@link StoreTestSupport} (a fresh {@link
 * TestClock} per test, stores and pools closed after each test, helpers to make orders): a database
 * of their own on the test server (made before a class's tests, dropped after them).
 */
abstract class MysqlStoreTestSupport extends StoreTestSupport {

  /** Each test class's own database; every test is skipped (or fails) without a server. */
  @RegisterExtension static final TestMysql.ClassDatabase database = TestMysql.databasePerClass();

  /** A store with its own pool of two in this class's database, on the test clock. */
  MysqlOrderStore.Builder pooled() {
    return MysqlOrderStore.builder()
        .jdbcUrl(database.jdbcUrl())
        .maximumPoolSize(2)
        .createSchema(true)
        .clock(clock);
  }

  MysqlOrderStore store(MysqlOrderStore.Builder builder) {
    return track(builder.build());
  }
}
