package org.fencekit.bench;

import java.util.List;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * How long and how often the main job measures. SHORT is the default (about two minutes per store
 * on two cores); FULL ({@code --full}) takes about twice as long and gives tighter errors (two
 * forks); SMOKE ({@code --smoke}) runs everything for a moment in this JVM, to check the pipeline:
 * it measures nothing and gives no errors. JMH needs at least three measurement iterations to give
 * an error at all.
 */
enum Profile {

  /** Two forks, each with 2 warmup and 5 measurement iterations of 1 s (about 3 s per run). */
  FULL(2, 2, TimeValue.seconds(1), 5, TimeValue.seconds(1), List.of(1, 4, 16)),
  /** One fork, 1 warmup and 5 measurement iterations of 1 s each. */
  SHORT(1, 1, TimeValue.seconds(1), 5, TimeValue.seconds(1), List.of(1, 4, 16)),
  /** No fork, no warmup, one iteration of 100 ms; 1 and 4 threads. Not a measurement. */
  SMOKE(0, 0, TimeValue.milliseconds(100), 1, TimeValue.milliseconds(100), List.of(1, 4));

  final int forks;
  final int warmupIterations;
  final TimeValue warmupTime;
  final int measurementIterations;
  final TimeValue measurementTime;
  final List<Integer> threads;

  Profile(
      int forks,
      int warmupIterations,
      TimeValue warmupTime,
      int measurementIterations,
      TimeValue measurementTime,
      List<Integer> threads) {
    this.forks = forks;
    this.warmupIterations = warmupIterations;
    this.warmupTime = warmupTime;
    this.measurementIterations = measurementIterations;
    this.measurementTime = measurementTime;
    this.threads = threads;
  }

  /** What this profile does, for the report. */
  String describe() {
    return name().toLowerCase()
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
        + threads.stream().map(String::valueOf).collect(java.util.stream.Collectors.joining("/"));
  }
}
