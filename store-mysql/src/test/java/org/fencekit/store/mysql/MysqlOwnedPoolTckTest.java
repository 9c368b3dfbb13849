package org.fencekit.store.mysql;

import org.junit.jupiter.api.DisplayName;

/** The TCK on a pool the store owns, fast path on (the default), the peer likewise. */
@DisplayName("MysqlOrderStore passes the TCK: own pool, fast path")
class MysqlOwnedPoolTckTest extends MysqlTckConfiguration {
  MysqlOwnedPoolTckTest() {
    super(Connections.OWNED_POOL, true, true);
  }
}
