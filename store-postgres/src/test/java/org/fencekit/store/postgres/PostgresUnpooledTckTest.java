package org.fencekit.store.postgres;

import org.junit.jupiter.api.DisplayName;

/** The TCK over an unpooled DataSource of the user's, fast path on. */
@DisplayName("PostgresOrderStore passes the TCK: the user's unpooled DataSource, fast path")
class PostgresUnpooledTckTest extends PostgresTckConfiguration {
  PostgresUnpooledTckTest() {
    super(Connections.UNPOOLED_DATA_SOURCE, true, true);
  }
}
