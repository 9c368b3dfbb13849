package org.fencekit.store.postgres;

import org.junit.jupiter.api.DisplayName;

/**
 * As {@link PostgresOwnedPoolTckTest}, with the fast path off: every call is a locking transaction.
 */
@DisplayName("PostgresOrderStore passes the TCK: own pool, locking transactions only")
class PostgresOwnedPoolLockingTckTest extends PostgresTckConfiguration {
  PostgresOwnedPoolLockingTckTest() {
    super(Connections.OWNED_POOL, false, false);
  }
}
