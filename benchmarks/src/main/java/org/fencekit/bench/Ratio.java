package org.fencekit.bench;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.IntStream;

/**
 * A ratio of throughputs measured as paired, interleaved trials: A (a store) and B (its raw
 * baseline or a peer) alternate A, B, B, A, A, B, B, A... ({@link #first}), each pair of trials in
 * a row gives one ratio A / B, and the ratio reported is the median of the pairs' ratios, with the
 * distribution-free 95% interval of a median: the order statistics the sign test puts at 2.5% and
 * 97.5% (the binomial with p = 1/2), valid for independent pairs of any distribution. Drift linear
 * in time cancels: a pair measured A then B and the next measured B then A lean equally to either
 * side of the truth.
 *
 * @param median the median of the pairs' ratios, NaN without pairs
 * @param low the interval's lower end, NaN with fewer than {@link #MIN_PAIRS} pairs
 * @param high its upper end, NaN likewise
 * @param pairs how many pairs it comes from
 */
record Ratio(double median, double low, double high, int pairs) {

  /** An interval within ±10% of the median decides a target (the runs stop there). */
  static final double PRECISION = 0.10;

  /** Fewer pairs give no 95% interval at all (the sign test needs six). */
  static final int MIN_PAIRS = 6;

  /** Whether trial {@code trial} (counted from 0) measures A: ABBA blocks, A B B A A B B A... */
  static boolean first(int trial) {
    int place = trial % 4;
    return place == 0 || place == 3;
  }

  /** The ratio A / B of each pair of trials, from their scores in run order. */
  static double[] pairRatios(double[] trials) {
    double[] a = side(trials, true);
    double[] b = side(trials, false);
    return IntStream.range(0, a.length).mapToDouble(p -> a[p] / b[p]).toArray();
  }

  /** The scores of one side's trials, one per pair, from every trial's score in run order. */
  static double[] side(double[] trials, boolean a) {
    double[] scores = new double[trials.length / 2];
    for (int t = 0; t < 2 * scores.length; t++) {
      if (first(t) == a) {
        scores[t / 2] = trials[t];
      }
    }
    return scores;
  }

  /** The median of {@code ratios}, one per pair, with its distribution-free 95% interval. */
  static Ratio of(double[] ratios) {
    int n = ratios.length;
    if (n == 0) {
      return new Ratio(Double.NaN, Double.NaN, Double.NaN, 0);
    }
    double[] sorted = ratios.clone();
    Arrays.sort(sorted);
    double median = median(sorted);
    int d = outside(n);
    return d == 0
        ? new Ratio(median, Double.NaN, Double.NaN, n)
        : new Ratio(median, sorted[d - 1], sorted[n - d], n);
  }

  /** The middle of {@code sorted} (the mean of the middle two of an even count); NaN if empty. */
  static double median(double[] sorted) {
    int n = sorted.length;
    return n == 0 ? Double.NaN : (sorted[(n - 1) / 2] + sorted[n / 2]) / 2;
  }

  /**
   * The largest d with P(X < d) ≤ 2.5% for X binomial(n, 1/2): the interval runs from the d-th
   * smallest pair ratio to the d-th largest. 0 when even the extremes are not 95% (n < 6).
   */
  private static int outside(int n) {
    double logPmf = -n * Math.log(2); // P(X = 0), in logs so that large n does not underflow
    double below = 0;
    for (int j = 0; j < n; j++) {
      below += Math.exp(logPmf);
      if (below > 0.025) {
        return j;
      }
      logPmf += Math.log((n - j) / (j + 1.0));
    }
    return 0;
  }

  /** Whether there is a ratio at all. */
  boolean measured() {
    return !Double.isNaN(median);
  }

  /**
   * The larger distance from the median to an end of its interval, over the median; NaN without.
   */
  double halfWidth() {
    return Math.max(median - low, high - median) / median;
  }

  /** Whether the interval is within ±{@link #PRECISION} of the median. */
  boolean precise() {
    return halfWidth() <= PRECISION;
  }

  /** {@code 0.80 [0.76, 0.86] ±8%}, or the median and its few pairs, or {@code -}. */
  String text() {
    if (!measured()) {
      return "-";
    }
    String number = String.format(Locale.ROOT, "%.2f", median);
    if (Double.isNaN(low)) {
      return number + " (" + pairs + " pairs: too few for an interval)";
    }
    return String.format(
        Locale.ROOT, "%s [%.2f, %.2f] ±%.0f%%", number, low, high, 100 * halfWidth());
  }
}
