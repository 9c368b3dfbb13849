package org.fencekit.store.postgres;

import org.junit.jupiter.api.DisplayName;

/** The TCK over the user's own HikariCP pool, fast path on. */
@DisplayName("PostgresOrderStore passes the TCK: the user's HikariCP pool, fast path")
class PostgresUserPoolTckTest extends PostgresTckConfiguration {
  PostgresUserPoolTckTest() {
    super(Connections.USER_POOL, true, true);
  }
}
