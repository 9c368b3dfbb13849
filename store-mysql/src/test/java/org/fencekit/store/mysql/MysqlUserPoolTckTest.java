package org.fencekit.store.mysql;

import org.junit.jupiter.api.DisplayName;

/** The TCK on the user's HikariCP pool at REPEATABLE READ, the server's default. */
@DisplayName("MysqlOrderStore passes the TCK: user's pool at REPEATABLE READ")
class MysqlUserPoolTckTest extends MysqlTckConfiguration {
  MysqlUserPoolTckTest() {
    super(Connections.USER_POOL, true, false);
  }
}
