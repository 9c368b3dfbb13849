package org.fencekit.bench;

import org.fencekit.store.OrderStore;
import org.fencekit.store.sqlite.SqliteOrderStore;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The store under test, shared by every thread of a run: the {@code backend} parameter names its
 * configuration ({@link StoreType}), and each run gets a store of its own, on a clock the setup may
 * shift ({@link BenchClock}), and a session-id prefix no other run uses.
 *
 * <p>A server backend whose environment variable is not set fails the run at setup with a message
 * naming the variable; the compare command ({@link Main}) passes only the available ones.
 */
@State(Scope.Benchmark)
public class BackendState {

  /** The store configuration; every constant of {@link StoreType} unless {@code -p backend=...}. */
  @Param public StoreType backend;

  OrderStore store;
  BenchClock clock;
  String runPrefix;

  /** Opens the store. */
  @Setup(Level.Trial)
  public void open() {
    if (!backend.available()) {
      throw new IllegalStateException(
          backend.absence() + "; set it or pass -p backend=MEMORY,SQLITE");
    }
    clock = new BenchClock();
    runPrefix = Orders.newRunPrefix();
    store = backend.open(clock);
  }

  /**
   * Closes the store and deletes this run's orders: its SQLite file, or its rows and keys on a
   * server.
   */
  @TearDown(Level.Trial)
  public void close() {
    if (store != null) {
      store.close();
      if (store instanceof SqliteOrderStore sqlite) {
        StoreType.deleteFresh(sqlite.file());
      }
      ServerCleanup.forget(backend, runPrefix);
    }
  }
}
