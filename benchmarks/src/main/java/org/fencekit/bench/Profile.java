package org.fencekit.bench;

import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * How long and how often the main job measures. SHORT is the default; FULL ({@code --full}) gives
 * the paired comparisons three times the time and the other benchmarks two forks; SMOKE ({@code
 * --smoke}) runs everything for a moment in this JVM, to check the pipeline: it measures nothing.
 *
 * <p>A paired comparison ({@link Comparison}) runs in rounds, each a JMH fork of {@code
 * warmupTrials} and then {@code trials} (or, after the first, as many as its interval needs)
 * alternating trials of {@code trial} each, until its interval is within ±10% or {@code
 * budgetSeconds} is spent ({@link Comparison#settle}). A run without {@code --ratios-only} also
 * runs one such round of the latency beside each peer, at the largest of {@code threads} ({@link
 * Tail}), and the latency, hot-order and stale-write benchmarks once each, with {@code forks},
 * {@code warmupIterations} and {@code measurementIterations} of {@code iterationTime}.
 *
 * @param name the profile's name in the report
 * @param threads the thread counts each benchmark runs at
 */
record Profile(
    String name,
    int trialMillis,
    int warmupTrials,
    int trials,
    int budgetSeconds,
    int forks,
    int warmupIterations,
    int measurementIterations,
    int iterationMillis,
    List<Integer> threads) {

  /** Trials of 200 ms, 9 minutes for the paired comparisons; 1 fork of 1 + 5 s for the rest. */
  static final Profile SHORT =
      new Profile("short", 200, 4, 32, 540, 1, 1, 5, 1000, List.of(1, 4, 16));

  /** Trials of 200 ms, 27 minutes for the paired comparisons; 2 forks of 2 + 5 s for the rest. */
  static final Profile FULL =
      new Profile("full", 200, 8, 32, 1620, 2, 2, 5, 1000, List.of(1, 4, 16));

  /** In this JVM, no warmup, 4 trials of 100 ms, one iteration of the rest; 1 and 4 threads. */
  static final Profile SMOKE = new Profile("smoke", 100, 0, 4, 0, 0, 0, 1, 100, List.of(1, 4));

  /** A trial's length. */
  TimeValue trial() {
    return TimeValue.milliseconds(trialMillis);
  }

  /** What this profile does, for the report. */
  String describe() {
    return String.format(
        Locale.ROOT,
        "%s profile: paired trials of %d ms after %d warmup trials per round, %d trials in a first"
            + " round, up to %d s in all; threads %s",
        name,
        trialMillis,
        warmupTrials,
        trials,
        budgetSeconds,
        threads.stream().map(String::valueOf).collect(Collectors.joining("/")));
  }
}
