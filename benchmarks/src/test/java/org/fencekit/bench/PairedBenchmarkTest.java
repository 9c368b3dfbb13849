package org.fencekit.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.profile.GCProfiler;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;

/**
 * The paired benchmark really alternates its sides in ABBA order, warmup apart: the memory store
 * allocates about twice what its raw baseline does per claim + complete, so each measurement
 * iteration's allocation shows which side it ran.
 */
class PairedBenchmarkTest {

  @BeforeAll
  static void allowParallelJmh() {
    System.setProperty("jmh.ignoreLock", "true");
  }

  @Test
  @DisplayName(
      "iterations run A, B, B, A, A, B, B, A after the warmup (seen in each one's allocation per op)")
  void abbaInJmh() throws Exception {
    List<RunResult> results =
        List.copyOf(
            new Runner(
                    new OptionsBuilder()
                        .include(
                            "^" + Pattern.quote(PairedBenchmark.class.getName() + ".overRaw") + "$")
                        .forks(0)
                        .warmupIterations(3) // odd: the schedule must restart at the measurement
                        .warmupTime(TimeValue.milliseconds(100))
                        .measurementIterations(8)
                        .measurementTime(TimeValue.milliseconds(100))
                        .mode(Mode.Throughput)
                        .timeUnit(TimeUnit.SECONDS)
                        .threads(2)
                        .addProfiler(GCProfiler.class)
                        .shouldFailOnError(true)
                        .verbosity(VerboseMode.SILENT)
                        .param("backend", "MEMORY")
                        .param("baseline", "MEMORY_MAP")
                        .build())
                .run());
    assertEquals(1, results.size());
    List<IterationResult> trials =
        List.copyOf(results.get(0).getBenchmarkResults().iterator().next().getIterationResults());
    assertEquals(8, trials.size());
    double[] bytes =
        trials.stream()
            .mapToDouble(t -> t.getSecondaryResults().get(Report.GC_NORM).getScore())
            .toArray();
    double leastOfA = Arrays.stream(Ratio.side(bytes, true)).min().orElseThrow();
    double mostOfB = Arrays.stream(Ratio.side(bytes, false)).max().orElseThrow();
    assertTrue(
        leastOfA > 1.3 * mostOfB,
        "B/op per iteration should be store, raw, raw, store, ...: " + Arrays.toString(bytes));
    for (IterationResult trial : trials) {
      assertTrue(trial.getPrimaryResult().getScore() > 0, "a trial measured nothing");
    }
  }

  @Test
  @DisplayName(
      "a long round on the memory store stays within a small heap: both sides start each trial empty")
  void longMemoryRoundKeepsTheHeapBounded() throws Exception {
    // Without the reset, each side's map keeps every order of the round: at the several hundred
    // thousand pairs per second this machine runs, 40 trials of 100 ms outgrow a 96 MB heap.
    RunResult result =
        new Runner(
                new OptionsBuilder()
                    .include(
                        "^" + Pattern.quote(PairedBenchmark.class.getName() + ".overRaw") + "$")
                    .forks(1)
                    .jvmArgsAppend("-Xmx96m")
                    .warmupIterations(2)
                    .warmupTime(TimeValue.milliseconds(100))
                    .measurementIterations(40)
                    .measurementTime(TimeValue.milliseconds(100))
                    .mode(Mode.Throughput)
                    .timeUnit(TimeUnit.SECONDS)
                    .threads(2)
                    .shouldFailOnError(true)
                    .verbosity(VerboseMode.SILENT)
                    .param("backend", "MEMORY")
                    .param("baseline", "MEMORY_MAP")
                    .build())
            .runSingle();
    assertEquals(40, result.getBenchmarkResults().iterator().next().getIterationResults().size());
  }
}
