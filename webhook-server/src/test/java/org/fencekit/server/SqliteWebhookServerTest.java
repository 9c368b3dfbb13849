package org.fencekit.server;

import java.nio.file.Path;
import java.time.Clock;
import org.fencekit.store.OrderStore;
import org.fencekit.store.sqlite.SqliteOrderStore;
import org.junit.jupiter.api.io.TempDir;

/** The server over HTTP on a SQLite file. */
class SqliteWebhookServerTest extends WebhookServerContract {

  @TempDir Path directory;

  @Override
  OrderStore newStore(Clock clock) {
    return SqliteOrderStore.builder(directory.resolve("orders.db")).clock(clock).build();
  }
}
