package org.fencekit.bench;

import org.fencekit.store.OrderStore;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.BenchmarkParams;

/**
 * The store under test, shared by every thread of a run: the {@code backend} parameter names its
 * configuration ({@link StoreType}), and each run gets a store of its own in a {@link Namespace} of
 * its own (dropped at the end), on a clock the setup may shift ({@link BenchClock}).
 *
 * <p>A server backend whose environment variable is not set fails the run at setup with a message
 * naming the variable; the main job ({@link Main}) passes only the available ones.
 */
@State(Scope.Benchmark)
public class BackendState {

  /**
   * The store configuration: every constant of {@link StoreType} unless {@code -p backend=...} (JMH
   * takes the constant's name, {@code POSTGRES_LOCKING} for the store labelled {@code
   * postgres-locking}). {@code POSTGRES} against {@code POSTGRES_LOCKING} compares PostgreSQL's
   * single-statement fast path with its locking transactions.
   */
  @Param public StoreType backend;

  OrderStore store;
  BenchClock clock;
  String runPrefix;
  private Namespace namespace;
  private int threads;

  /** Opens the store in a fresh namespace. */
  @Setup(Level.Trial)
  public void open(BenchmarkParams params) {
    if (!backend.available(Server.environment())) {
      throw new IllegalStateException(
          backend.absence() + "; set it or pass -p backend=MEMORY,SQLITE");
    }
    clock = new BenchClock();
    runPrefix = Orders.newRunPrefix();
    namespace = Namespace.fresh();
    threads = params.getThreads();
    store = backend.open(clock, namespace, Server.environment(), threads);
  }

  /**
   * Replaces the memory store, which keeps every order in the heap, with an empty one; other stores
   * are left as they are. A paired round of hundreds of trials would otherwise hold millions of
   * orders and outgrow its fork's heap ({@link PairedBenchmark.Trial}).
   */
  void emptyTheHeap() {
    if (backend == StoreType.MEMORY) {
      store.close();
      store = backend.open(clock, namespace, Server.environment(), threads);
    }
  }

  /** Closes the store and drops its namespace: its SQLite files, its schema or its keys. */
  @TearDown(Level.Trial)
  public void close() {
    Namespace.closeThenDrop(store, namespace, backend.server());
  }
}
