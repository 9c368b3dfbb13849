package org.fencekit.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.stream.IntStream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Paired trials: their ABBA order, the ratio per pair, its median and its 95% interval. */
class RatioTest {

  @Test
  @DisplayName("trials alternate A, B, B, A, A, B, B, A: every pair holds one A and one B")
  void abba() {
    StringBuilder order = new StringBuilder();
    for (int trial = 0; trial < 12; trial++) {
      order.append(Ratio.first(trial) ? 'A' : 'B');
    }
    assertEquals("ABBAABBAABBA", order.toString());
  }

  @Test
  @DisplayName("the ratio is taken per pair, A over B, whichever ran first")
  void perPair() {
    // trials in run order: A=10, B=5 | B=4, A=12 | A=9, B=3 | B=6, A=6
    double[] trials = {10, 5, 4, 12, 9, 3, 6, 6};
    assertEquals("[2.0, 3.0, 3.0, 1.0]", Arrays.toString(Ratio.pairRatios(trials)));
    assertEquals("[10.0, 12.0, 9.0, 6.0]", Arrays.toString(Ratio.side(trials, true)));
    assertEquals("[5.0, 4.0, 3.0, 6.0]", Arrays.toString(Ratio.side(trials, false)));
    // an odd trial out (a round cut short) belongs to no pair
    assertEquals(2, Ratio.pairRatios(new double[] {10, 5, 4, 12, 7}).length);
  }

  @Test
  @DisplayName("pairs whose ratio is exactly 2 give 2 with the interval [2, 2]")
  void exact() {
    double[] twos = new double[20];
    Arrays.fill(twos, 2.0);
    Ratio ratio = Ratio.of(twos);
    assertEquals(2.0, ratio.median());
    assertEquals(2.0, ratio.low());
    assertEquals(2.0, ratio.high());
    assertEquals(20, ratio.pairs());
    assertEquals(0.0, ratio.halfWidth());
    assertTrue(ratio.precise());
  }

  @Test
  @DisplayName("the median of an even number of pairs is the mean of the middle two")
  void median() {
    assertEquals(2.5, Ratio.of(new double[] {4, 1, 3, 2, 9, 0.5, 2, 3}).median());
    assertEquals(3.0, Ratio.of(new double[] {3, 1, 5, 2, 9, 0.5, 4}).median());
  }

  @Test
  @DisplayName(
      "pairs drawn from a known distribution: the 95% interval holds the true median 95-99% of the time")
  void coverage() {
    SplittableRandom random = new SplittableRandom(7);
    double trueMedian = 1.3; // log-normal around it, 15% spread: a noisy pair
    int runs = 2000;
    int held = 0;
    for (int run = 0; run < runs; run++) {
      double[] pairs =
          IntStream.range(0, 30)
              .mapToDouble(i -> trueMedian * Math.exp(0.15 * gaussian(random)))
              .toArray();
      Ratio ratio = Ratio.of(pairs);
      if (ratio.low() <= trueMedian && trueMedian <= ratio.high()) {
        held++;
      }
    }
    double rate = held / (double) runs;
    assertTrue(rate >= 0.94 && rate <= 0.99, "held the true median in " + rate + " of runs");
  }

  @Test
  @DisplayName("too few pairs give no interval, and are never precise")
  void fewPairs() {
    Ratio ratio = Ratio.of(new double[] {2, 2, 2, 2, 2});
    assertEquals(2.0, ratio.median());
    assertTrue(Double.isNaN(ratio.low()) && Double.isNaN(ratio.high()));
    assertFalse(ratio.precise());
    assertEquals("2.00 (5 pairs: too few for an interval)", ratio.text());
    assertEquals("-", Ratio.of(new double[0]).text());
    assertFalse(Ratio.of(new double[0]).measured());
  }

  @Test
  @DisplayName(
      "drift linear in time cancels under ABBA (within 0.1%) but biases plain AB alternation (by over 1%)")
  void drift() {
    int n = 64;
    double truth = 2.0;
    double[] abba = new double[n];
    double[] ab = new double[n];
    for (int t = 0; t < n; t++) {
      double machine = 1 + 0.05 * t; // the machine speeds up 5% of the first trial per trial
      abba[t] = (Ratio.first(t) ? truth * 1000 : 1000) * machine;
      ab[t] = (t % 2 == 0 ? truth * 1000 : 1000) * machine;
    }
    double balanced = Ratio.of(Ratio.pairRatios(abba)).median();
    double[] abPairs = new double[n / 2];
    for (int p = 0; p < n / 2; p++) {
      abPairs[p] = ab[2 * p] / ab[2 * p + 1];
    }
    double biased = Ratio.of(abPairs).median();
    assertEquals(truth, balanced, truth * 0.001, "ABBA");
    assertTrue(Math.abs(biased - truth) > truth * 0.01, "AB gave " + biased);
  }

  @Test
  @DisplayName("the text gives the median, the interval and its half-width in percent")
  void text() {
    Ratio ratio = new Ratio(0.8, 0.76, 0.87, 40);
    assertEquals(0.0875, ratio.halfWidth(), 1e-9);
    assertEquals("0.80 [0.76, 0.87] ±9%", ratio.text());
    assertTrue(ratio.precise());
    assertFalse(new Ratio(0.8, 0.7, 0.9, 40).precise());
  }

  private static double gaussian(SplittableRandom random) {
    // Box-Muller: SplittableRandom has no nextGaussian on Java 17
    double u = 1 - random.nextDouble();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random.nextDouble());
  }
}
