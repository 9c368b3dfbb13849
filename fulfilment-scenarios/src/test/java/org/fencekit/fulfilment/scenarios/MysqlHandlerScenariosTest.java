package org.fencekit.fulfilment.scenarios;

import java.time.Clock;
import org.fencekit.store.OrderStore;
import org.fencekit.store.mysql.MysqlOrderStore;
import org.fencekit.testsupport.TestMysql;
import org.junit.jupiter.api.extension.RegisterExtension;

/** fencekit's own handler through every scenario, on MySQL or MariaDB (a database of its own). */
class MysqlHandlerScenariosTest extends FulfilmentScenarios {

  @RegisterExtension static final TestMysql.ClassDatabase DATABASE = TestMysql.databasePerClass();

  @Override
  protected OrderStore newStore(Clock clock) {
    return MysqlOrderStore.builder()
        .jdbcUrl(DATABASE.jdbcUrl())
        .createSchema(true)
        .maximumPoolSize(4)
        .clock(clock)
        .build();
  }

  @Override
  protected HandlerUnderTest newHandler(HandlerContext context) {
    return HandlerUnderTest.of(context.fulfilmentHandler().build());
  }
}
