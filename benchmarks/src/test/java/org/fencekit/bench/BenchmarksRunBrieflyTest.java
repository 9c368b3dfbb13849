package org.fencekit.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.profile.GCProfiler;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;

/**
 * Each benchmark runs for a moment, in this JVM, on the embedded stores, and records what it claims
 * to record. Nothing here looks at how fast anything was: a benchmark is not a timed test.
 */
class BenchmarksRunBrieflyTest {

  @BeforeAll
  static void allowParallelJmh() {
    System.setProperty("jmh.ignoreLock", "true");
  }

  private static List<RunResult> run(
      Class<?> benchmark, Mode mode, int threads, String param, String... values)
      throws RunnerException {
    return run(benchmark, mode, threads, null, param, values);
  }

  /** As above, with {@code fixed} parameters given as name, value, name, value... */
  private static List<RunResult> run(
      Class<?> benchmark, Mode mode, int threads, String[] fixed, String param, String... values)
      throws RunnerException {
    ChainedOptionsBuilder options =
        new OptionsBuilder()
            .include("^" + Pattern.quote(benchmark.getName() + ".") + ".*")
            .forks(0)
            .warmupIterations(0)
            .measurementIterations(1)
            .measurementTime(TimeValue.milliseconds(300))
            .mode(mode)
            .timeUnit(mode == Mode.SampleTime ? TimeUnit.MICROSECONDS : TimeUnit.SECONDS)
            .addProfiler(GCProfiler.class)
            .shouldFailOnError(true)
            .verbosity(VerboseMode.SILENT)
            .param(param, values);
    if (threads > 0) {
      options.threads(threads);
    }
    for (int i = 0; fixed != null && i < fixed.length; i += 2) {
      options.param(fixed[i], fixed[i + 1]);
    }
    Collection<RunResult> results = new Runner(options.build()).run();
    assertEquals(values.length, results.size(), "one result per " + param + " in " + values.length);
    return new ArrayList<>(results);
  }

  private static double counter(RunResult result, String name) {
    Result<?> value = Report.secondary(result, name);
    assertNotNull(
        value,
        "counter "
            + name
            + " missing from "
            + result.getParams().getBenchmark()
            + " "
            + result.getSecondaryResults().keySet());
    return value.getScore();
  }

  private static String where(RunResult result) {
    return result.getParams().getBenchmark()
        + " "
        + result.getParams().getParam("backend")
        + " threads="
        + result.getParams().getThreads();
  }

  @Test
  @DisplayName("claim+complete runs on memory and sqlite and records allocation per operation")
  void claimComplete() throws RunnerException {
    for (RunResult result :
        run(ClaimCompleteBenchmark.class, Mode.Throughput, 2, "backend", "MEMORY", "SQLITE")) {
      assertTrue(result.getPrimaryResult().getScore() > 0, where(result));
      assertTrue(counter(result, "gc.alloc.rate.norm") > 0, where(result));
    }
  }

  @Test
  @DisplayName("claim+complete in sample mode gives a latency distribution")
  void claimCompleteLatency() throws RunnerException {
    for (RunResult result :
        run(ClaimCompleteBenchmark.class, Mode.SampleTime, 1, "backend", "MEMORY", "SQLITE")) {
      double p50 = result.getPrimaryResult().getStatistics().getPercentile(50);
      double p99 = result.getPrimaryResult().getStatistics().getPercentile(99);
      assertTrue(p50 > 0 && p99 >= p50, where(result) + ": p50 " + p50 + ", p99 " + p99);
    }
  }

  @Test
  @DisplayName(
      "hot orders run at 4 threads on one order: every outcome is counted, claims are won and"
          + " settles land (which call meets which outcome: HotOrderOutcomesTest)")
  void hotOrders() throws RunnerException {
    for (RunResult result :
        run(
            HotOrderBenchmark.class,
            Mode.Throughput,
            4,
            // a lease longer than the run: a holder a loaded machine slows is never taken over, so
            // a win's settle lands (whether another thread ever meets a held order is up to the
            // scheduler: on few busy cores, one thread can claim and settle between the others'
            // calls for a whole run, as in a CI run of 2026-12-07 that saw no in-flight claim)
            new String[] {"orders", "1", "leaseMillis", "60000"},
            "backend",
            "MEMORY",
            "SQLITE")) {
      for (String name : Report.HOT_COUNTERS) {
        assertTrue(counter(result, name) >= 0, where(result) + " " + name);
      }
      assertTrue(counter(result, "claimed") > 0, where(result) + ": nothing claimed");
      assertTrue(counter(result, "written") > 0, where(result) + ": no settle landed");
    }
  }

  @Test
  @DisplayName("the stale-write storm rejects every stale write while the owner's heartbeats land")
  void staleWriteStorm() throws RunnerException {
    for (RunResult result :
        run(StaleWriteBenchmark.class, Mode.Throughput, 0, "backend", "MEMORY", "SQLITE")) {
      assertTrue(counter(result, "rejected") > 0, where(result) + ": nothing rejected");
      assertEquals(0.0, counter(result, "landed"), where(result) + ": a stale write landed");
      assertTrue(counter(result, "heartbeats") > 0, where(result) + ": the owner never wrote");
    }
  }

  @Test
  @DisplayName("the raw baselines of the embedded stores run")
  void rawBaselines() throws RunnerException {
    for (RunResult result :
        run(
            RawBaselineBenchmark.class,
            Mode.Throughput,
            2,
            "baseline",
            "MEMORY_MAP",
            "SQLITE_JDBC",
            "SQLITE_NORMAL_JDBC")) {
      assertTrue(result.getPrimaryResult().getScore() > 0, result.getParams().getParam("baseline"));
    }
  }

  @Test
  @DisplayName("the raw baselines of the server stores run, when their servers are set")
  void serverRawBaselines() throws RunnerException {
    Server.useEnvironment(TestServers.env(Server.POSTGRES, Server.REDIS, Server.REDIS_CLUSTER));
    try {
      for (RunResult result :
          run(
              RawBaselineBenchmark.class,
              Mode.Throughput,
              2,
              "baseline",
              "POSTGRES_SINGLE_JDBC",
              "POSTGRES_LOCKING_JDBC",
              "REDIS_EVALSHA",
              "REDIS_CLUSTER_EVALSHA")) {
        assertTrue(
            result.getPrimaryResult().getScore() > 0, result.getParams().getParam("baseline"));
      }
    } finally {
      Server.useEnvironment(null);
    }
  }

  @Test
  @DisplayName(
      "the peers (ShedLock JDBC and Redis, Redisson RFencedLock, node and cluster) and the store"
          + " over their DataSource run, when their servers are set")
  void peers() throws RunnerException {
    Server.useEnvironment(TestServers.env(Server.POSTGRES, Server.REDIS, Server.REDIS_CLUSTER));
    try {
      String[] peers =
          java.util.Arrays.stream(Peer.values())
              .filter(p -> p.server() != Server.MYSQL)
              .map(Peer::name)
              .toArray(String[]::new);
      for (RunResult result : run(PeerLockBenchmark.class, Mode.Throughput, 2, "peer", peers)) {
        assertTrue(result.getPrimaryResult().getScore() > 0, result.getParams().getParam("peer"));
      }
      for (RunResult result :
          run(
              ClaimCompleteBenchmark.class,
              Mode.Throughput,
              2,
              "backend",
              "POSTGRES_DATASOURCE",
              "POSTGRES_PGBOUNCER")) {
        assertTrue(result.getPrimaryResult().getScore() > 0, where(result));
      }
    } finally {
      Server.useEnvironment(null);
    }
  }

  @Test
  @DisplayName(
      "on MySQL, both stores, their raw baseline and ShedLock's JDBC provider run, when its"
          + " server is set")
  void mysql() throws RunnerException {
    Server.useEnvironment(TestServers.env(Server.MYSQL));
    try {
      for (RunResult result :
          run(
              ClaimCompleteBenchmark.class,
              Mode.Throughput,
              2,
              "backend",
              "MYSQL",
              "MYSQL_DATASOURCE")) {
        assertTrue(result.getPrimaryResult().getScore() > 0, where(result));
      }
      for (RunResult result :
          run(RawBaselineBenchmark.class, Mode.Throughput, 2, "baseline", "MYSQL_SINGLE_JDBC")) {
        assertTrue(result.getPrimaryResult().getScore() > 0, "MYSQL_SINGLE_JDBC");
      }
      for (RunResult result :
          run(PeerLockBenchmark.class, Mode.Throughput, 2, "peer", "SHEDLOCK_JDBC_MYSQL")) {
        assertTrue(result.getPrimaryResult().getScore() > 0, "SHEDLOCK_JDBC_MYSQL");
      }
    } finally {
      Server.useEnvironment(null);
    }
  }

  @Test
  @DisplayName(
      "the embedded stores are always available; a server store's absence names its variable")
  void availability() {
    assertTrue(
        StoreType.MEMORY.available(Map.of())
            && StoreType.SQLITE.available(Map.of())
            && StoreType.SQLITE_NORMAL.available(Map.of()));
    assertFalse(StoreType.POSTGRES.available(Map.of()));
    assertTrue(
        StoreType.POSTGRES.absence().contains("FENCEKIT_POSTGRES_URL"),
        StoreType.POSTGRES.absence());
    assertTrue(StoreType.MYSQL.absence().contains("FENCEKIT_MYSQL_URL"), StoreType.MYSQL.absence());
    assertTrue(StoreType.REDIS.absence().contains("FENCEKIT_REDIS_URL"), StoreType.REDIS.absence());
    assertTrue(
        StoreType.REDIS_CLUSTER.absence().contains("FENCEKIT_REDIS_CLUSTER_NODES"),
        StoreType.REDIS_CLUSTER.absence());
    for (StoreType store : StoreType.values()) {
      assertTrue(RawBaseline.of(store).stores().contains(store), store.label());
    }
  }
}
