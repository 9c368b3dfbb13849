package org.fencekit.bench;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.fencekit.store.OrderStore;
import org.fencekit.store.WriteResult;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Group;
import org.openjdk.jmh.annotations.GroupThreads;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * An experiment on the PostgreSQL server's share of the work, paired so that the noise of a shared
 * machine falls on both sides alike: two stores over the peers' kind of DataSource ({@link
 * StoreType#POSTGRES_DATASOURCE}), one on its schema as created and one on a {@link Variant} of it
 * (without the operator's partial indexes, a lower fillfactor), measured at the same time in one
 * JMH group: half the threads on each. {@code fresh} claims and completes fresh orders ({@link
 * ClaimCompleteBenchmark}); {@code hot} claims one hot order per store until won and settles it
 * ({@link HotLock}). Each iteration prints both orders tables' updates and how many were HOT
 * ({@code pg_stat_user_tables}). The variant changes the schema after the store created it, in the
 * run's own namespace; its operator queries would be slower without their indexes, so only the
 * throughput is looked at here.
 *
 * <pre>{@code
 * java -cp benchmarks/target/fencekit-benchmarks.jar org.openjdk.jmh.Main PostgresSchemaBenchmark \
 *     -p variant=NO_PARTIAL_INDEXES,FILLFACTOR_70
 * }</pre>
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class PostgresSchemaBenchmark {

  /** Threads per side of a pair. */
  static final int THREADS = 2;

  /** A change to the orders table, made right after the store created it. */
  public enum Variant {
    /** The schema as the store creates it (V1 and V2): the control, against itself. */
    AS_CREATED(),
    /** Without the index of live claims (the stuck-orders listing). */
    NO_CLAIMS_INDEX("DROP INDEX %s_claims"),
    /** Without both partial indexes of V2 on the orders table (as V1 alone had it). */
    NO_PARTIAL_INDEXES("DROP INDEX %s_claims", "DROP INDEX %s_failed"),
    /** Fillfactor 70: room on each page for an updated row's new version. */
    FILLFACTOR_70("ALTER TABLE %s SET (fillfactor = 70)"),
    /** Both: room on the page and no index whose columns a settle changes. */
    NO_PARTIAL_INDEXES_FILLFACTOR_70(
        "DROP INDEX %s_claims", "DROP INDEX %s_failed", "ALTER TABLE %s SET (fillfactor = 70)");

    final List<String> statements;

    Variant(String... statements) {
      this.statements = List.of(statements);
    }
  }

  /** One store and its hot order. */
  static final class Side {
    final String label;
    final Namespace namespace = Namespace.fresh();
    final OrderStore store;
    final String table;
    final String prefix = Orders.newRunPrefix();
    final AtomicInteger threads = new AtomicInteger();
    final HotSlots hot = new HotSlots(prefix + "hot_", 1);

    Side(String label) {
      this.label = label;
      store =
          StoreType.POSTGRES_DATASOURCE.open(
              new BenchClock(), namespace, Server.environment(), THREADS);
      table = namespace.schema() + ".fencekit_orders";
    }

    void close() {
      Namespace.closeThenDrop(store, namespace, Server.POSTGRES);
    }
  }

  /** The two stores: as created, and the variant. */
  @State(Scope.Benchmark)
  public static class Pair {

    /** The variant of the second store's schema. */
    @Param public Variant variant;

    Side control;
    Side changed;
    private String url;

    /** Opens both stores and applies the variant to the second. */
    @Setup(Level.Trial)
    public void open() throws SQLException {
      url =
          Server.POSTGRES
              .lookup(Server.environment())
              .orElseThrow(() -> new IllegalStateException(Server.POSTGRES.variable() + " unset"));
      control = new Side("AS_CREATED");
      changed = new Side(variant.name());
      try (Connection c = DriverManager.getConnection(url);
          Statement s = c.createStatement()) {
        for (String statement : variant.statements) {
          s.execute(String.format(Locale.ROOT, statement, changed.table));
        }
      }
    }

    /** Prints each table's updates so far, and how many of them were HOT. */
    @TearDown(Level.Iteration)
    public void report() throws SQLException {
      try (Connection c = DriverManager.getConnection(url);
          Statement s = c.createStatement()) {
        for (Side side : List.of(control, changed)) {
          try (ResultSet r =
              s.executeQuery(
                  "SELECT n_tup_ins, n_tup_upd, n_tup_hot_upd FROM pg_stat_user_tables"
                      + " WHERE relid = '"
                      + side.table
                      + "'::regclass")) {
            if (r.next()) {
              System.out.printf(
                  Locale.ROOT,
                  "%n%s: %d inserts, %d updates, %d HOT (%.0f%%)",
                  side.label,
                  r.getLong(1),
                  r.getLong(2),
                  r.getLong(3),
                  r.getLong(2) == 0 ? 0.0 : 100.0 * r.getLong(3) / r.getLong(2));
            }
          }
        }
        System.out.println();
      }
    }

    /** Closes both stores and drops their namespaces. */
    @TearDown(Level.Trial)
    public void close() {
      try {
        control.close();
      } finally {
        changed.close();
      }
    }
  }

  /** One thread's fresh session ids and wins on the hot order. */
  @State(Scope.Thread)
  public static class Cursor {
    private String prefix;
    private long next;
    private final HotLock.Wins wins = new HotLock.Wins();

    /** Claims a fresh order on {@code side}'s store and completes it. */
    WriteResult fresh(Side side) {
      if (prefix == null) {
        prefix = side.prefix + side.threads.getAndIncrement() + "_";
      }
      return Orders.claimComplete(side.store, prefix + next++);
    }

    /** Wins a claim on {@code side}'s hot order and settles it. */
    WriteResult hot(Side side) {
      return HotLock.claimWon(side.store, side.hot, wins);
    }
  }

  /** Claim + complete of a fresh order on the store as created. */
  @Benchmark
  @Group("fresh")
  @GroupThreads(THREADS)
  public WriteResult freshAsCreated(Pair pair, Cursor cursor) {
    return cursor.fresh(pair.control);
  }

  /** Claim + complete of a fresh order on the variant. */
  @Benchmark
  @Group("fresh")
  @GroupThreads(THREADS)
  public WriteResult freshVariant(Pair pair, Cursor cursor) {
    return cursor.fresh(pair.changed);
  }

  /** One claim won on the hot order of the store as created. */
  @Benchmark
  @Group("hot")
  @GroupThreads(THREADS)
  public WriteResult hotAsCreated(Pair pair, Cursor cursor) {
    return cursor.hot(pair.control);
  }

  /** One claim won on the hot order of the variant. */
  @Benchmark
  @Group("hot")
  @GroupThreads(THREADS)
  public WriteResult hotVariant(Pair pair, Cursor cursor) {
    return cursor.hot(pair.changed);
  }
}
