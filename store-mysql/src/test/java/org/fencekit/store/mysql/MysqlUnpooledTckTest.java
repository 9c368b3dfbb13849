package org.fencekit.store.mysql;

import org.junit.jupiter.api.DisplayName;

/** The TCK on an unpooled DataSource: a connection per call, no session state carried over. */
@DisplayName("MysqlOrderStore passes the TCK: unpooled DataSource")
class MysqlUnpooledTckTest extends MysqlTckConfiguration {
  MysqlUnpooledTckTest() {
    super(Connections.UNPOOLED_DATA_SOURCE, false, true);
  }
}
