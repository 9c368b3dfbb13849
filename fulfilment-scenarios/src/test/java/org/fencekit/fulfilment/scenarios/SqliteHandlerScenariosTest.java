package org.fencekit.fulfilment.scenarios;

import java.nio.file.Path;
import java.time.Clock;
import org.fencekit.store.OrderStore;
import org.fencekit.store.sqlite.SqliteOrderStore;
import org.junit.jupiter.api.io.TempDir;

/** fencekit's own handler through every scenario, on a SQLite file. */
class SqliteHandlerScenariosTest extends FulfilmentScenarios {

  @TempDir Path directory;

  @Override
  protected OrderStore newStore(Clock clock) {
    return SqliteOrderStore.builder(directory.resolve("orders.db")).clock(clock).build();
  }

  @Override
  protected HandlerUnderTest newHandler(HandlerContext context) {
    return HandlerUnderTest.of(context.fulfilmentHandler().build());
  }
}
