package org.fencekit.store.postgres;

import org.junit.jupiter.api.DisplayName;

/** The TCK over an unpooled DataSource of the user's, fast path off. */
@DisplayName(
    "PostgresOrderStore passes the TCK: the user's unpooled DataSource, locking transactions only")
class PostgresUnpooledLockingTckTest extends PostgresTckConfiguration {
  PostgresUnpooledLockingTckTest() {
    super(Connections.UNPOOLED_DATA_SOURCE, false, false);
  }
}
