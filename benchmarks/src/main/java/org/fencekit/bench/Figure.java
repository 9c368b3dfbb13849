package org.fencekit.bench;

import java.util.Locale;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;

/**
 * A measured figure as JMH reports it: the score and its error, the half-width of JMH's 99.9%
 * confidence interval over the measurement iterations. The error is unknown (NaN) when a run had
 * too few iterations to give one (JMH needs three), as in the smoke profile.
 *
 * @param score the mean, NaN when nothing was measured
 * @param error the half-width of the 99.9% interval, NaN when unknown
 */
record Figure(double score, double error) {

  /** Nothing measured. */
  static final Figure NONE = new Figure(Double.NaN, Double.NaN);

  /** The primary result of a run, or {@link #NONE}. */
  static Figure of(RunResult result) {
    return result == null ? NONE : of(result.getPrimaryResult());
  }

  /** A result (primary or secondary), or {@link #NONE}. */
  static Figure of(Result<?> result) {
    return result == null ? NONE : new Figure(result.getScore(), result.getScoreError());
  }

  /** Whether a score was measured. */
  boolean measured() {
    return !Double.isNaN(score);
  }

  /** Whether JMH gave an error for it. */
  boolean errorKnown() {
    return !Double.isNaN(error);
  }

  /** A whole-number rate with its error: {@code 3,054 ±120}, {@code 3,054 ±?}, or {@code -}. */
  String rate() {
    if (!measured()) {
      return "-";
    }
    return String.format(Locale.ROOT, "%,.0f", score)
        + (errorKnown() ? String.format(Locale.ROOT, " ±%,.0f", error) : " ±?");
  }
}
