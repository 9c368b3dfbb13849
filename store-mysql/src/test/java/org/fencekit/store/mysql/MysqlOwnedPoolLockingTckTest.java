package org.fencekit.store.mysql;

import org.junit.jupiter.api.DisplayName;

/**
 * The TCK on a pool the store owns, locking transactions only, against a peer on the fast path: the
 * two ways must decide alike on one database.
 */
@DisplayName("MysqlOrderStore passes the TCK: own pool, locking transactions, fast-path peer")
class MysqlOwnedPoolLockingTckTest extends MysqlTckConfiguration {
  MysqlOwnedPoolLockingTckTest() {
    super(Connections.OWNED_POOL, false, true);
  }
}
