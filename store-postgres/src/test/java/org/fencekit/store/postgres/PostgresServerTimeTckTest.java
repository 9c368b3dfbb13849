package org.fencekit.store.postgres;

import java.time.Clock;
import org.fencekit.store.OrderStore;
import org.fencekit.tck.ServerTimeTck;
import org.fencekit.testsupport.TestPostgres;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The TCK's real-time group, leases on PostgreSQL's clock_timestamp(). */
@DisplayName("PostgresOrderStore with serverTime(true) passes the TCK's real-time group")
class PostgresServerTimeTckTest extends ServerTimeTck {

  @RegisterExtension static final TestPostgres.ClassSchema schema = TestPostgres.schemaPerClass();

  @Override
  protected OrderStore newServerTimeStore(Clock clientClock) {
    return PostgresOrderStore.builder()
        .jdbcUrl(schema.jdbcUrl())
        .schema(schema.name())
        .createSchema(true)
        .maximumPoolSize(2)
        .clock(clientClock)
        .serverTime(true)
        .build();
  }
}
