package org.fencekit.fulfilment.scenarios;

import java.time.Clock;
import org.fencekit.store.OrderStore;
import org.fencekit.store.postgres.PostgresOrderStore;
import org.fencekit.testsupport.TestPostgres;
import org.junit.jupiter.api.extension.RegisterExtension;

/** fencekit's own handler through every scenario, on PostgreSQL (a schema of its own). */
class PostgresHandlerScenariosTest extends FulfilmentScenarios {

  @RegisterExtension static final TestPostgres.ClassSchema SCHEMA = TestPostgres.schemaPerClass();

  @Override
  protected OrderStore newStore(Clock clock) {
    return PostgresOrderStore.builder()
        .jdbcUrl(SCHEMA.jdbcUrl())
        .schema(SCHEMA.name())
        .createSchema(true)
        .maximumPoolSize(4)
        .clock(clock)
        .build();
  }

  @Override
  protected HandlerUnderTest newHandler(HandlerContext context) {
    return HandlerUnderTest.of(context.fulfilmentHandler().build());
  }
}
