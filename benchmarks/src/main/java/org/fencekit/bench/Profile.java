package org.fencekit.bench;

import java.util.List;
import java.util.stream.Collectors;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * How long and how often the main job measures. SHORT is the default (about two minutes per store
 * on two cores); FULL ({@code --full}) takes about twice as long and gives tighter errors (two
 * forks); SMOKE ({@code --smoke}) runs everything for a moment in this JVM, to check the pipeline:
 * it measures nothing and gives no errors. JMH needs at least three measurement iterations to give
 * an error at all.
 *
 * @param name the profile's name in the report
 * @param threads the thread counts each benchmark runs at
 */
record Profile(
    String name,
    int forks,
    int warmupIterations,
    TimeValue warmupTime,
    int measurementIterations,
    TimeValue measurementTime,
    List<Integer> threads) {

  /** Two forks, each with 2 warmup and 5 measurement iterations of 1 s (about 3 s per run). */
  static final Profile FULL =
      new Profile("full", 2, 2, TimeValue.seconds(1), 5, TimeValue.seconds(1), List.of(1, 4, 16));

  /** One fork, 1 warmup and 5 measurement iterations of 1 s each. */
  static final Profile SHORT =
      new Profile("short", 1, 1, TimeValue.seconds(1), 5, TimeValue.seconds(1), List.of(1, 4, 16));

  /** No fork, no warmup, one iteration of 100 ms; 1 and 4 threads. Not a measurement. */
  static final Profile SMOKE =
      new Profile(
          "smoke",
          0,
          0,
          TimeValue.milliseconds(100),
          1,
          TimeValue.milliseconds(100),
          List.of(1, 4));

  /** What this profile does, for the report. */
  String describe() {
    return name
        + " profile: "
        + forks
        + " fork(s), "
        + warmupIterations
        + " × "
        + warmupTime
        + " warmup, "
        + measurementIterations
        + " × "
        + measurementTime
        + " measurement, threads "
        + threads.stream().map(String::valueOf).collect(Collectors.joining("/"));
  }
}
