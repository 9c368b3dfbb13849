package org.fencekit.store.postgres;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.fencekit.store.ClaimId;
import org.fencekit.store.ClaimResult;
import org.fencekit.store.Item;
import org.fencekit.store.OrderSnapshot;
import org.fencekit.store.WriteResult;
import org.fencekit.testsupport.TestPostgres;

/**
 * A quick side-by-side throughput comparison of the single-statement fast path and the locking
 * transactions, on one PostgreSQL, in one run. Not a benchmark (the benchmarks module has the JMH
 * ones) and not a test: a program that prints a table, for a change's report.
 *
 * <p>Workloads, each at 1 and 16 threads, each thread calling the store in a loop:
 *
 * <ul>
 *   <li>{@code fresh}: claim a new order, complete it (one op = both calls);
 *   <li>{@code hot-1}, {@code hot-16}: claim one of 1 or 16 shared orders with a 5 ms lease (real
 *       clock); if claimed, fail it so it is claimable again (one op = one claim, plus the fail
 *       when it won).
 * </ul>
 *
 * Both stores (pool of 16 each, built from the URL) work in a fresh schema, dropped at the end.
 * Runs alternate between the two paths, the order flipping each round, and the table gives the
 * median ops/s of the rounds and the ratio fast / locking.
 *
 * <p>Run (the server from {@value TestPostgres#URL_VARIABLE}; arguments: seconds per run, rounds,
 * and optionally a comma-separated list of workloads):
 *
 * <pre>{@code
 * ./mvnw -B -o -q -pl store-postgres test-compile
 * ./mvnw -B -o -q -pl store-postgres dependency:build-classpath -Dmdep.outputFile=/tmp/fencekit-pg.cp
 * FENCEKIT_POSTGRES_URL='jdbc:postgresql://127.0.0.1:5432/test?user=postgres' \
 *   java -cp store-postgres/target/test-classes:store-postgres/target/classes:$(cat /tmp/fencekit-pg.cp) \
 *   org.fencekit.store.postgres.FastPathThroughput 5 3
 * }</pre>
 */
public final class FastPathThroughput {

  private static final Duration HOT_LEASE = Duration.ofMillis(5);
  private static final Item ITEM = new Item("prov-1", "LPA:1$smdp.example$A");
  private static final int[] THREADS = {1, 16};
  private static final String[] WORKLOADS = {"fresh", "hot-1", "hot-16"};

  private FastPathThroughput() {}

  /** One op of a workload on one thread. */
  @FunctionalInterface
  private interface Op {
    void run(PostgresOrderStore store, int thread, long i);
  }

  /**
   * Runs the comparison.
   *
   * @param args seconds per run (default 5), rounds (default 3), workloads (default all)
   */
  public static void main(String[] args) throws Exception {
    int seconds = args.length > 0 ? Integer.parseInt(args[0]) : 5;
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 3;
    String[] workloads = args.length > 2 ? args[2].split(",") : WORKLOADS;
    String url = System.getenv(TestPostgres.URL_VARIABLE);
    if (url == null || url.isBlank()) {
      throw new IllegalStateException(
          "set "
              + TestPostgres.URL_VARIABLE
              + "=jdbc:postgresql://127.0.0.1:5432/test?user=postgres");
    }
    String schema = "fencekit_throughput_" + ClaimId.newNonce().substring(0, 10);
    execute(url, "CREATE SCHEMA " + schema);
    Map<String, List<Double>> results = new LinkedHashMap<>();
    try (PostgresOrderStore fast = store(url, schema, true);
        PostgresOrderStore locking = store(url, schema, false)) {
      for (int round = 0; round < rounds; round++) {
        for (String workload : workloads) {
          for (int threads : THREADS) {
            PostgresOrderStore[] order =
                round % 2 == 0
                    ? new PostgresOrderStore[] {locking, fast}
                    : new PostgresOrderStore[] {fast, locking};
            for (PostgresOrderStore store : order) {
              String path = store == fast ? "fast" : "locking";
              double opsPerSecond =
                  run(store, op(workload, round + "-" + threads + "-" + path), threads, seconds);
              results
                  .computeIfAbsent(workload + " " + threads + " " + path, k -> new ArrayList<>())
                  .add(opsPerSecond);
              System.err.printf(
                  Locale.ROOT,
                  "round %d %-7s T=%-2d %-7s %,10.0f ops/s%n",
                  round + 1,
                  workload,
                  threads,
                  path,
                  opsPerSecond);
            }
          }
        }
      }
      System.out.printf(
          Locale.ROOT,
          "%nfast hits/misses: claim %d/%d, complete %d/%d, fail %d/%d%n",
          fast.fastPath().hits("claim"),
          fast.fastPath().misses("claim"),
          fast.fastPath().hits("complete"),
          fast.fastPath().misses("complete"),
          fast.fastPath().hits("fail"),
          fast.fastPath().misses("fail"));
    } finally {
      execute(url, "DROP SCHEMA IF EXISTS " + schema + " CASCADE");
    }
    System.out.printf(Locale.ROOT, "%nmedian of %d runs of %d s each%n", rounds, seconds);
    System.out.printf(
        Locale.ROOT,
        "%-8s %3s %14s %14s %7s%n",
        "workload",
        "T",
        "locking op/s",
        "fast op/s",
        "ratio");
    for (String workload : workloads) {
      for (int threads : THREADS) {
        double locking = median(results.get(workload + " " + threads + " locking"));
        double fast = median(results.get(workload + " " + threads + " fast"));
        System.out.printf(
            Locale.ROOT,
            "%-8s %3d %,14.0f %,14.0f %6.2fx%n",
            workload,
            threads,
            locking,
            fast,
            fast / locking);
      }
    }
  }

  private static Op op(String workload, String run) {
    if (workload.equals("fresh")) {
      return (store, thread, i) -> {
        String sid = "fresh-" + run + "-" + thread + "-" + i;
        ClaimResult claim = store.claim(snapshot(sid), Duration.ofMinutes(2));
        ClaimId token = ((ClaimResult.Claimed) claim).claimId();
        if (!(store.complete(sid, token, ITEM) instanceof WriteResult.Written)) {
          throw new IllegalStateException("the complete of a fresh order must land: " + sid);
        }
      };
    }
    int orders = Integer.parseInt(workload.substring("hot-".length()));
    return (store, thread, i) -> {
      String sid = "hot-" + run + "-" + ThreadLocalRandom.current().nextInt(orders);
      ClaimResult claim = store.claim(snapshot(sid), HOT_LEASE);
      if (claim instanceof ClaimResult.Claimed) {
        store.fail(sid, ((ClaimResult.Claimed) claim).claimId(), "provider outage");
      }
    };
  }

  private static double run(PostgresOrderStore store, Op op, int threads, int seconds)
      throws InterruptedException {
    AtomicBoolean stop = new AtomicBoolean();
    AtomicLong done = new AtomicLong();
    CountDownLatch start = new CountDownLatch(1);
    List<Thread> workers = new ArrayList<>();
    List<Throwable> failures = Collections.synchronizedList(new ArrayList<>());
    for (int t = 0; t < threads; t++) {
      int thread = t;
      Thread worker =
          new Thread(
              () -> {
                try {
                  start.await();
                  long i = 0;
                  while (!stop.get()) {
                    op.run(store, thread, i++);
                  }
                  done.addAndGet(i);
                } catch (Throwable e) {
                  failures.add(e);
                }
              });
      worker.start();
      workers.add(worker);
    }
    long began = System.nanoTime();
    start.countDown();
    Thread.sleep(seconds * 1000L);
    stop.set(true);
    for (Thread worker : workers) {
      worker.join();
    }
    double elapsed = (System.nanoTime() - began) / 1e9;
    if (!failures.isEmpty()) {
      throw new IllegalStateException("a worker failed", failures.get(0));
    }
    return done.get() / elapsed;
  }

  private static PostgresOrderStore store(String url, String schema, boolean fastPath) {
    return PostgresOrderStore.builder()
        .jdbcUrl(url)
        .schema(schema)
        .createSchema(true)
        .maximumPoolSize(16)
        .singleStatementFastPath(fastPath)
        .clock(Clock.systemUTC())
        .build();
  }

  private static OrderSnapshot snapshot(String sessionId) {
    return new OrderSnapshot(sessionId, "esim-eu-5gb", 1, "ada@example.com", 1999, "usd");
  }

  private static double median(List<Double> values) {
    List<Double> sorted = new ArrayList<>(values);
    Collections.sort(sorted);
    int n = sorted.size();
    return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
  }

  private static void execute(String url, String sql) throws SQLException {
    try (Connection connection = DriverManager.getConnection(url);
        Statement statement = connection.createStatement()) {
      statement.execute(sql);
    }
  }
}
