package org.fencekit.store.sqlite;

import java.nio.file.Path;
import org.fencekit.store.OrderStore;
import org.fencekit.tck.OrderStoreTck;
import org.fencekit.tck.TestClock;
import org.junit.jupiter.api.io.TempDir;

/**
 * The TCK against {@link SqliteOrderStore}: each test on a fresh file, and its peer a second store,
 * with its own pool, on the same file.
 */
class SqliteOrderStoreTckTest extends OrderStoreTck {

  @TempDir Path dir;

  /** The file of the last {@link #newStore}, which {@link #newPeerStore} opens again. */
  private Path file;

  private int files;

  @Override
  protected OrderStore newStore(TestClock clock) {
    file = dir.resolve("orders-" + ++files + ".db");
    return SqliteOrderStore.builder(file).clock(clock).build();
  }

  @Override
  protected OrderStore newPeerStore(TestClock clock) {
    if (file == null) {
      throw new IllegalStateException("newPeerStore before newStore: there is no file to share");
    }
    return SqliteOrderStore.builder(file).clock(clock).build();
  }
}
