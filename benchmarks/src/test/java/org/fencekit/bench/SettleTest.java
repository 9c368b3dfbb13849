package org.fencekit.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.fencekit.bench.Comparison.Job;
import org.fencekit.bench.Comparison.Kind;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * How the compare command spends its budget after each comparison's first round ({@link
 * Comparison#settle}), on comparisons whose interval narrows as a model says, not on JMH runs.
 */
class SettleTest {

  private static final long TRIAL = 200_000_000L; // 200 ms

  /**
   * A comparison of SQLite with its raw baseline (target 0.9) whose ratio is 1.0 with an interval
   * of ±{@code width} at 16 pairs, narrowing as (16 / pairs) to the power {@code shrink}.
   */
  static final class Modelled extends Job {
    final double width;
    final double shrink;
    int pairs = 16;
    final List<Integer> rounds = new ArrayList<>();

    Modelled(double width, double shrink) {
      super(StoreType.SQLITE, Kind.RAW, null, 1);
      this.width = width;
      this.shrink = shrink;
    }

    @Override
    Ratio ratio() {
      double half = width * Math.pow(16.0 / pairs, shrink);
      return new Ratio(1.0, 1.0 - half, 1.0 + half, pairs);
    }
  }

  private long spent;
  private final List<Modelled> order = new ArrayList<>();

  /** Settles {@code jobs} on a budget of {@code trials} trials; each round adds its pairs. */
  private void settle(long trials, Modelled... jobs) {
    Comparison.settle(
        List.of(jobs),
        trials * TRIAL,
        TRIAL,
        () -> spent,
        (job, n) -> {
          Modelled m = (Modelled) job;
          m.rounds.add(n);
          order.add(m);
          m.pairs += n / 2;
          spent += n * TRIAL;
        });
  }

  @Test
  @DisplayName(
      "a comparison still too wide after its second round gets a third, and more, while the budget lasts")
  void passes() {
    // narrows more slowly than one over the square root: each round's estimate falls short
    Modelled slow = new Modelled(0.15, 0.25);
    assertTrue(slow.unsettled());
    settle(1_000, slow);
    assertFalse(slow.unsettled(), () -> "rounds " + slow.rounds + ", " + slow.ratio().text());
    assertTrue(slow.rounds.size() >= 3, () -> "rounds " + slow.rounds);
  }

  @Test
  @DisplayName("each pass takes the comparisons that need the fewest trials first")
  void fewestFirst() {
    Modelled wide = new Modelled(0.40, 0.5); // its width says about 580 trials
    Modelled near = new Modelled(0.15, 0.5); // 52
    settle(2_000, wide, near);
    assertEquals(List.of(near, wide, near, wide), order.subList(0, 4));
    assertFalse(near.unsettled(), () -> "rounds " + near.rounds);
    assertFalse(wide.unsettled(), () -> "rounds " + wide.rounds);
  }

  @Test
  @DisplayName(
      "a round at most doubles a comparison's pairs: a first interval far too wide does not spend"
          + " the budget at once")
  void doubles() {
    Modelled wide = new Modelled(0.40, 0.5); // its width says about 580 trials
    settle(2_000, wide);
    assertEquals(List.of(32, 64, 128), wide.rounds.subList(0, 3), "16 pairs, then 32, 64, 128");
    assertFalse(wide.unsettled(), () -> "rounds " + wide.rounds);
  }

  @Test
  @DisplayName("a settled comparison gets no round, and nothing runs once the budget is spent")
  void stops() {
    Modelled done = new Modelled(0.05, 0.5);
    Modelled open = new Modelled(0.40, 0.5);
    settle(7, done, open);
    assertEquals(List.of(), done.rounds);
    assertEquals(List.of(), open.rounds, "7 trials left: no round of 8");
  }
}
