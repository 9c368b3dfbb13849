package org.fencekit.store.postgres;

import javax.sql.DataSource;
import org.fencekit.store.OrderStore;
import org.fencekit.store.jdbc.ServerTckConfiguration;
import org.fencekit.tck.TestClock;
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
  protected PostgresOrderStore.Builder builder(
      TestClock clock, boolean createSchema, boolean fastPath) {
    return PostgresOrderStore.builder()
        .schema(schema.name())
        .createSchema(createSchema)
        .singleStatementFastPath(fastPath)
        .clock(clock);
  }

  @Override
  protected OrderStore build(PostgresOrderStore.Builder builder) {
    return builder.build();
  }

  @Override
  protected DataSource unpooledDataSource(String jdbcUrl) {
    PGSimpleDataSource dataSource = new PGSimpleDataSource();
    dataSource.setURL(jdbcUrl);
    dataSource.setPrepareThreshold(0);
    return dataSource;
  }
}
