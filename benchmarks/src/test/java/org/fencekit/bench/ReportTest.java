package org.fencekit.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The ratio table: one row per paired comparison, its interval, pairs and verdict. */
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
}
