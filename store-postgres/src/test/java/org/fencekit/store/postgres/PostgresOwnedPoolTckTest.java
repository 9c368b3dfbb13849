package org.fencekit.store.postgres;

import org.junit.jupiter.api.DisplayName;

/**
 * The TCK on a pool the store owns, fast path on (the default), the peer with a pool of its own.
 */
@DisplayName("PostgresOrderStore passes the TCK: own pool, fast path")
class PostgresOwnedPoolTckTest extends PostgresTckConfiguration {
  PostgresOwnedPoolTckTest() {
    super(Connections.OWNED_POOL, true, true);
  }
}
