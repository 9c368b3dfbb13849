package org.fencekit.store.postgres;

import org.junit.jupiter.api.DisplayName;

/**
 * The TCK over an unpooled DataSource of the user's: a connection per call, no session state
 * carried over. The store takes the locking transactions, its peer the fast path, as on MySQL: both
 * paths' SQL runs on fresh connections here (the peer's in the cross-instance, stress and
 * linearizability rules), and every rule runs at full count with either setting on the owned pool
 * (PostgresOwnedPoolTckTest, PostgresOwnedPoolLockingTckTest).
 */
@DisplayName("PostgresOrderStore passes the TCK: the user's unpooled DataSource")
class PostgresUnpooledTckTest extends PostgresTckConfiguration {
  PostgresUnpooledTckTest() {
    super(Connections.UNPOOLED_DATA_SOURCE, false, true);
  }
}
