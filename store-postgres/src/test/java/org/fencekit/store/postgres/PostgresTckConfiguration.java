package org.fencekit.store.postgres;

import javax.sql.DataSource;
import org.fencekit.store.jdbc.ServerTckConfiguration;
import org.fencekit.testsupport.TestPostgres;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The whole TCK against a real PostgreSQL (see {@link TestPostgres}), in one configuration per
 * subclass ({@link ServerTckConfiguration}), each in a schema of its own with a random name,
 * dropped afterwards. Without a pool every call opens a connection (a server process).
 */
abstract class PostgresTckConfiguration extends ServerTckConfiguration<PostgresOrderStore.Builder> {

  @RegisterExtension static final TestPostgres.ClassSchema schema = TestPostgres.schemaPerClass();

  PostgresTckConfiguration(Connections connections, boolean fastPath, boolean peerFastPath) {
    super(connections, fastPath, peerFastPath);
  }

  @Override
  protected String jdbcUrl() {
    return schema.jdbcUrl();
  }

  @Override
  protected PostgresOrderStore.Builder newBuilder() {
    return PostgresOrderStore.builder().schema(schema.name());
  }

  @Override
  protected DataSource unpooledDataSource(String jdbcUrl) {
    PGSimpleDataSource dataSource = new PGSimpleDataSource();
    dataSource.setURL(jdbcUrl);
    dataSource.setPrepareThreshold(0);
    return dataSource;
  }
}
