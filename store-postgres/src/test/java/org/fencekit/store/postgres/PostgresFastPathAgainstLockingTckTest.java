package org.fencekit.store.postgres;

import org.junit.jupiter.api.DisplayName;

/**
 * The fast path decides for the store, locking transactions for its peer: the two ways race each
 * other over the same orders.
 */
@DisplayName("PostgresOrderStore passes the TCK: fast path racing locking transactions")
class PostgresFastPathAgainstLockingTckTest extends PostgresTckConfiguration {
  PostgresFastPathAgainstLockingTckTest() {
    super(Connections.OWNED_POOL, true, false);
  }
}
