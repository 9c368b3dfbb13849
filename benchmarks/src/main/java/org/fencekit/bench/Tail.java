package org.fencekit.bench;

import java.util.Arrays;
import java.util.List;
import org.openjdk.jmh.util.MultisetStatistics;
import org.openjdk.jmh.util.Statistics;

/**
 * The latency of a store's claim + complete beside a peer's lock + unlock, from paired trials in
 * JMH's sample mode ({@link Comparison.Kind#TAIL}): the trials alternate store (A) and peer (B) as
 * the throughput comparisons' do ({@link Ratio#first}), each trial a histogram of its sampled
 * operations' times. Each side's percentiles are of its samples over all its trials, merged; each
 * ratio store / peer is the median, with its 95% interval ({@link Ratio}), of the pairs' ratios of
 * the two trials' own percentile. Lower is better: a ratio above 1 is a store slower than its peer.
 *
 * @param threads the thread count
 * @param beside the peer's label
 * @param store the store's samples, all its trials merged (microseconds)
 * @param peer the peer's samples, likewise
 * @param p50 the median of the pairs' ratios of their trials' p50, store / peer
 * @param p99 the same of their p99
 */
record Tail(int threads, String beside, Statistics store, Statistics peer, Ratio p50, Ratio p99) {

  /**
   * From each round's trials in run order (one list per JMH fork), each trial's samples.
   *
   * @param rounds the trials of each round, A, B, B, A...; an odd last trial belongs to no pair
   */
  static Tail of(int threads, String beside, List<List<Statistics>> rounds) {
    return new Tail(
        threads,
        beside,
        merged(rounds, true),
        merged(rounds, false),
        ratio(rounds, 50),
        ratio(rounds, 99));
  }

  /** The percentile {@code p} of {@code samples} (0 to 100), NaN without samples. */
  static double percentile(Statistics samples, double p) {
    return samples.getN() == 0 ? Double.NaN : samples.getPercentile(p);
  }

  /** One side's samples (A: the store), over the paired trials of every round. */
  private static Statistics merged(List<List<Statistics>> rounds, boolean a) {
    MultisetStatistics all = new MultisetStatistics();
    for (List<Statistics> trials : rounds) {
      for (int t = 0; t < trials.size() / 2 * 2; t++) {
        if (Ratio.first(t) == a) {
          trials.get(t).getRawData().forEachRemaining(e -> all.addValue(e.getKey(), e.getValue()));
        }
      }
    }
    return all;
  }

  /** The paired ratio of the trials' percentile {@code p}, store / peer, over every round. */
  private static Ratio ratio(List<List<Statistics>> rounds, double p) {
    return Ratio.of(
        rounds.stream()
            .map(trials -> trials.stream().mapToDouble(t -> percentile(t, p)).toArray())
            .flatMapToDouble(trials -> Arrays.stream(Ratio.pairRatios(trials)))
            .toArray());
  }
}
