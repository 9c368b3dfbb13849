package org.fencekit.server;

import java.time.Clock;
import org.fencekit.store.OrderStore;
import org.fencekit.store.postgres.PostgresOrderStore;
import org.fencekit.testsupport.TestPostgres;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The server over HTTP on PostgreSQL. */
class PostgresWebhookServerTest extends WebhookServerContract {

  @RegisterExtension static final TestPostgres.ClassSchema SCHEMA = TestPostgres.schemaPerClass();

  @Override
  OrderStore newStore(Clock clock) {
    return PostgresOrderStore.builder()
        .jdbcUrl(SCHEMA.jdbcUrl())
        .schema(SCHEMA.name())
        .createSchema(true)
        .clock(clock)
        .build();
  }
}
