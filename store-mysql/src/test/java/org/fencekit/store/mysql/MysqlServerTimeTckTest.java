package org.fencekit.store.mysql;

import java.time.Clock;
import org.fencekit.store.OrderStore;
import org.fencekit.tck.ServerTimeTck;
import org.fencekit.testsupport.TestMysql;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The TCK's real-time group, leases on the MySQL or MariaDB server's clock. */
@DisplayName("MysqlOrderStore with serverTime(true) passes the TCK's real-time group")
class MysqlServerTimeTckTest extends ServerTimeTck {

  @RegisterExtension static final TestMysql.ClassDatabase database = TestMysql.databasePerClass();

  @Override
  protected OrderStore newServerTimeStore(Clock clientClock) {
    return MysqlOrderStore.builder()
        .jdbcUrl(database.jdbcUrl())
        .createSchema(true)
        .maximumPoolSize(2)
        .clock(clientClock)
        .serverTime(true)
        .build();
  }
}
