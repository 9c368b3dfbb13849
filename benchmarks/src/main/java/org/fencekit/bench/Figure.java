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

  /** This figure over {@code base}, with the interval the two errors allow. */
  Ratio over(Figure base) {
    if (!measured() || !base.measured() || base.score <= 0) {
      return Ratio.NONE;
    }
    double value = score / base.score;
    if (!errorKnown() || !base.errorKnown()) {
      return new Ratio(value, Double.NaN, Double.NaN);
    }
    double low = Math.max(0, score - error) / (base.score + base.error);
    double high =
        base.score - base.error <= 0
            ? Double.POSITIVE_INFINITY
            : (score + error) / (base.score - base.error);
    return new Ratio(value, low, high);
  }

  /**
   * A ratio of two figures and the interval their errors allow: from the lowest numerator over the
   * highest denominator to the highest over the lowest.
   *
   * @param value the ratio of the scores, NaN when either is missing
   * @param low the interval's lower end, NaN when an error is unknown
   * @param high its upper end, NaN when an error is unknown
   */
  record Ratio(double value, double low, double high) {

    /** No ratio: a figure is missing. */
    static final Ratio NONE = new Ratio(Double.NaN, Double.NaN, Double.NaN);

    /** The mark of a ratio this run cannot tell from 1, used in tables and their notes. */
    static final String NOISE = "≈";

    /** Whether there is a ratio at all. */
    boolean measured() {
      return !Double.isNaN(value);
    }

    /** Whether the interval is known. */
    boolean intervalKnown() {
      return !Double.isNaN(low);
    }

    /**
     * Whether the interval spans more than the difference from 1: the two figures cannot be told
     * apart in this run (or there is no interval to tell).
     */
    boolean noise() {
      return !intervalKnown() || (low <= 1 && high >= 1);
    }

    /** The larger distance from the ratio to an end of its interval. */
    double halfWidth() {
      return Math.max(value - low, high - value);
    }

    /**
     * {@code 0.54 ±0.05}; {@code ≈0.97 ±0.10} when the interval includes 1; {@code 0.54 ±?} when it
     * is unknown; {@code -} when there is no ratio.
     */
    String text() {
      if (!measured()) {
        return "-";
      }
      String number = String.format(Locale.ROOT, "%.2f", value);
      if (!intervalKnown()) {
        return number + " ±?";
      }
      String error =
          Double.isInfinite(high) ? " ±∞" : String.format(Locale.ROOT, " ±%.2f", halfWidth());
      return (noise() ? NOISE : "") + number + error;
    }
  }
}
