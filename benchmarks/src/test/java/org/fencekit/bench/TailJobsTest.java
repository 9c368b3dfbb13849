package org.fencekit.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import org.fencekit.bench.Comparison.Job;
import org.fencekit.bench.Comparison.Kind;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.openjdk.jmh.results.RunResult;

/**
 * Which latency comparisons beside the peers the main job plans ({@link Kind#TAIL}), and that they
 * stay out of the settling, the ratio table and the charts. No benchmark runs here.
 */
class TailJobsTest {

  private static final List<StoreType> STORES =
      List.of(
          StoreType.MEMORY,
          StoreType.SQLITE,
          StoreType.POSTGRES_DATASOURCE,
          StoreType.MYSQL,
          StoreType.REDIS,
          StoreType.REDIS_CLUSTER,
          StoreType.ETCD);

  private static List<String> tails(Profile profile, boolean ratiosOnly) {
    return new Comparison(
            profile,
            STORES,
            Path.of("unused"),
            new PrintStream(OutputStream.nullOutputStream()),
            "test",
            "none",
            ratiosOnly)
        .jobs().stream().filter(job -> job.kind == Kind.TAIL).map(Job::title).toList();
  }

  @Test
  @DisplayName(
      "the default run measures latency beside each peer of a store that has one, at 16 threads only")
  void besideEachPeer() {
    assertEquals(
        List.of(
            "postgres-datasource  latency beside shedlock-jdbc  16 thread(s)",
            "mysql  latency beside shedlock-jdbc-mysql  16 thread(s)",
            "redis  latency beside shedlock-redis  16 thread(s)",
            "redis  latency beside redisson-fenced  16 thread(s)",
            "redis-cluster  latency beside shedlock-redis-cluster  16 thread(s)",
            "redis-cluster  latency beside redisson-fenced-cluster  16 thread(s)",
            "etcd  latency beside etcd-lock  16 thread(s)"),
        tails(Profile.SHORT, false));
  }

  @Test
  @DisplayName("the smoke profile measures it at its most threads, 4")
  void smoke() {
    assertEquals(
        "redis  latency beside shedlock-redis  4 thread(s)",
        tails(Profile.SMOKE, false).get(2),
        tails(Profile.SMOKE, false).toString());
  }

  @Test
  @DisplayName("--ratios-only measures no latency beside the peers")
  void notWithRatiosOnly() {
    assertEquals(List.of(), tails(Profile.SHORT, true));
  }

  @Test
  @DisplayName(
      "a latency comparison has no target, is never settled further, and is in neither the ratio"
          + " table nor the charts")
  void noTargetNoSettleNoRatioRow() {
    Job tail =
        new Job(StoreType.REDIS, Kind.TAIL, Peer.SHEDLOCK_REDIS, 16) {
          @Override
          Ratio ratio() {
            return new Ratio(1.0, 0.5, 1.5, 16); // ±50%: a throughput comparison would settle
          }
        };
    assertTrue(Double.isNaN(tail.target().minimum()));
    assertFalse(tail.unsettled());
    Job raw = new Job(StoreType.REDIS, Kind.RAW, null, 16);
    for (Job job : List.of(raw, tail)) {
      job.results.add(new RunResult(null, List.of())); // ran, no trial
    }
    assertEquals(
        List.of("redis-evalsha"),
        Report.rows(List.of(raw, tail)).stream().map(Report.Row::beside).toList());
  }
}
