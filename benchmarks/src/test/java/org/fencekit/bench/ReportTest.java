package org.fencekit.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.openjdk.jmh.util.MultisetStatistics;
import org.openjdk.jmh.util.Statistics;

/**
 * The ratio table: one row per paired comparison, its interval, pairs and verdict; and the latency
 * table beside the peers, from synthetic trials.
 */
class ReportTest {

  @Test
  @DisplayName("a row shows the medians, the ratio with its interval, the pairs and the verdict")
  void ratios() {
    List<Report.Row> rows =
        List.of(
            new Report.Row(
                "postgres-datasource",
                4,
                "shedlock-jdbc",
                2161.4,
                2702.9,
                new Ratio(0.8, 0.76, 0.87, 40),
                new Target(0.95),
                4653,
                2059),
            new Report.Row(
                "redis",
                16,
                "redis-evalsha",
                10348,
                Double.NaN,
                new Ratio(0.9, 0.6, 1.2, 12),
                Target.NONE,
                Double.NaN,
                Double.NaN),
            new Report.Row(
                "sqlite",
                1,
                "sqlite-jdbc",
                3644,
                4164,
                new Ratio(0.92, 0.75, 1.1, 12),
                new Target(0.9),
                11727,
                9698));
    assertEquals(
        """
        | store               | threads |        beside | median ops/s | its ops/s |   store / beside [95%] | pairs |                         target |   B/op | its B/op |
        |:--------------------|--------:|--------------:|-------------:|----------:|-----------------------:|------:|-------------------------------:|-------:|---------:|
        | postgres-datasource |       4 | shedlock-jdbc |        2,161 |     2,703 |  0.80 [0.76, 0.87] ±9% |    40 |                   ≥0.95 missed |  4,653 |    2,059 |
        | redis               |      16 | redis-evalsha |       10,348 |         - | 0.90 [0.60, 1.20] ±33% |    12 |                              - |      - |        - |
        | sqlite              |       1 |   sqlite-jdbc |        3,644 |     4,164 | 0.92 [0.75, 1.10] ±20% |    12 | ≥0.90 undecided: interval ±20% | 11,727 |    9,698 |
        """,
        Report.ratios(rows).render(""));
  }

  /** A trial's samples: 90 operations of {@code usual} microseconds, 10 of {@code slow}. */
  private static Statistics trial(double usual, double slow) {
    MultisetStatistics samples = new MultisetStatistics();
    samples.addValue(usual, 90);
    samples.addValue(slow, 10);
    return samples;
  }

  /**
   * Trials in run order, A, B, B, A...: the store's from {@code store} in turn, the peer's all
   * {@code peer}.
   */
  private static List<Statistics> round(List<Statistics> store, Statistics peer) {
    List<Statistics> trials = new ArrayList<>();
    for (int t = 0, a = 0; t < 2 * store.size(); t++) {
      trials.add(Ratio.first(t) ? store.get(a++) : peer);
    }
    return trials;
  }

  @Test
  @DisplayName(
      "the latency beside a peer shows each side's percentiles of its merged samples and the paired"
          + " ratios of the trials' percentiles, store / peer")
  void tails() {
    // 8 pairs in two rounds: the store's p99 of 300 to 380 us over the peer's 200 gives ratios
    // 1.50, 1.55, 1.60, 1.65, 1.75, 1.80, 1.85, 1.90; merged, its slowest 1% are all 380 us
    Statistics peer = trial(80, 200);
    List<Statistics> first =
        List.of(trial(100, 350), trial(100, 300), trial(100, 380), trial(100, 330));
    List<Statistics> second =
        List.of(trial(100, 320), trial(100, 360), trial(100, 310), trial(100, 370));
    // 2 pairs in one round: no interval
    List<Statistics> etcd = round(List.of(trial(500, 900), trial(500, 900)), trial(400, 1200));
    List<Tail> tails =
        List.of(
            Tail.of(16, "shedlock-redis", List.of(round(first, peer), round(second, peer))),
            Tail.of(16, "etcd-lock", List.of(etcd)));
    assertEquals(
        """
        | threads |         beside | store p50 us | peer p50 us |                  p50 store / peer [95%] | store p99 us | peer p99 us |                  p99 store / peer [95%] | store p99.9 us | peer p99.9 us | pairs |
        |:--------|---------------:|-------------:|------------:|----------------------------------------:|-------------:|------------:|----------------------------------------:|---------------:|--------------:|------:|
        | 16      | shedlock-redis |          100 |        80.0 |                   1.25 [1.25, 1.25] ±0% |          380 |         200 |                  1.70 [1.50, 1.90] ±12% |            380 |           200 |     8 |
        | 16      |      etcd-lock |          500 |         400 | 1.25 (2 pairs: too few for an interval) |          900 |       1,200 | 0.75 (2 pairs: too few for an interval) |            900 |         1,200 |     2 |
        """,
        Report.tails(tails).render(""));
  }
}
