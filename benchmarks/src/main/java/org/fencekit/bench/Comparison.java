package org.fencekit.bench;

import java.io.FileOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.profile.GCProfiler;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.results.format.ResultFormatFactory;
import org.openjdk.jmh.results.format.ResultFormatType;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.format.OutputFormat;
import org.openjdk.jmh.runner.format.OutputFormatFactory;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.VerboseMode;

/**
 * The main job's benchmarks: runs every benchmark on every given store through JMH's {@link
 * Runner}, one JMH run per (benchmark, backend, thread count) so it can show progress, prints a
 * table per backend as soon as that backend is done, and writes {@code results.json} (JMH's JSON),
 * {@code results.md} (the tables) and the two charts ({@link Charts}) to the results folder, with
 * JMH's own log in {@code jmh.log}. Every fork gets the main job's run id, so each benchmark's
 * {@link Namespace} belongs to this run.
 */
final class Comparison {

  /** What one JMH run measures: a benchmark class, or one method of it. */
  enum Kind {
    THROUGHPUT("claim+complete", ClaimCompleteBenchmark.class, null),
    RAW("raw baseline", RawBaselineBenchmark.class, null),
    PEER("peer", PeerLockBenchmark.class, null),
    HOT_CLAIM("one hot order, claims won", HotLockBenchmark.class, HotLockBenchmark.CLAIM),
    HOT_LOCK("one hot lock, acquisitions", HotLockBenchmark.class, HotLockBenchmark.LOCK),
    LATENCY("claim+complete latency", ClaimCompleteBenchmark.class, null),
    HOT("hot orders", HotOrderBenchmark.class, null),
    STALE("stale-write storm", StaleWriteBenchmark.class, null);

    final String title;
    final Class<?> benchmark;
    final String method;

    Kind(String title, Class<?> benchmark, String method) {
      this.title = title;
      this.benchmark = benchmark;
      this.method = method;
    }
  }

  /** One JMH run, and what it gave. */
  static final class Job {
    final StoreType store;
    final Kind kind;
    final Peer peer;
    final int threads;
    final List<RunResult> results = new ArrayList<>();
    String error;

    /**
     * @param peer the peer of a {@link Kind#PEER}, {@link Kind#HOT_CLAIM} or {@link Kind#HOT_LOCK}
     *     job, else null
     */
    Job(StoreType store, Kind kind, Peer peer, int threads) {
      this.store = store;
      this.kind = kind;
      this.peer = peer;
      this.threads = threads;
    }

    String title() {
      return store.label()
          + "  "
          + kind.title
          + (kind == Kind.RAW ? " " + RawBaseline.of(store).label() : "")
          + (peer == null || kind == Kind.HOT_CLAIM ? "" : " " + peer.label())
          + (kind == Kind.STALE ? "  (3 stale writers + 1 owner)" : "  " + threads + " thread(s)");
    }

    RunResult first() {
      return results.isEmpty() ? null : results.get(0);
    }
  }

  private final Profile profile;
  private final List<StoreType> stores;
  private final Path outDir;
  private final PrintStream out;
  private final String command;
  private final String servers;
  private final List<Job> jobs = new ArrayList<>();

  /**
   * @param command the command that ran, for results.md
   * @param servers the server variables that were set, for results.md
   * @param ratiosOnly only claim + complete beside the raw baselines and the peers, and one hot
   *     order beside one hot lock (no latency, hot orders by K or storm): the ratios the speed
   *     targets are about, in a third of the time
   */
  Comparison(
      Profile profile,
      List<StoreType> stores,
      Path outDir,
      PrintStream out,
      String command,
      String servers,
      boolean ratiosOnly) {
    this.profile = profile;
    this.stores = List.copyOf(stores);
    this.outDir = outDir;
    this.out = out;
    this.command = command;
    this.servers = servers;
    for (StoreType store : stores) {
      // Each store run next to its raw baseline and its peers at the same thread count, so that
      // all of them see the same background load when the machine is shared.
      for (int t : profile.threads()) {
        jobs.add(new Job(store, Kind.THROUGHPUT, null, t));
        jobs.add(new Job(store, Kind.RAW, null, t));
        for (Peer peer : Peer.of(store)) {
          jobs.add(new Job(store, Kind.PEER, peer, t));
        }
      }
      // One order (one lock) that every thread fights over, beside the peer that has a target
      // for it, each store's run next to the peer's at the same thread count.
      for (Peer peer : Peer.hotOf(store)) {
        for (int t : profile.threads()) {
          jobs.add(new Job(store, Kind.HOT_CLAIM, peer, t));
          jobs.add(new Job(store, Kind.HOT_LOCK, peer, t));
        }
      }
      if (ratiosOnly) {
        continue;
      }
      for (int t : profile.threads()) {
        jobs.add(new Job(store, Kind.LATENCY, null, t));
      }
      for (int t : profile.threads()) {
        jobs.add(new Job(store, Kind.HOT, null, t));
      }
      jobs.add(new Job(store, Kind.STALE, null, 4));
    }
  }

  /** The jobs, in the order they run. */
  List<Job> jobs() {
    return jobs;
  }

  /**
   * Runs every job, printing progress and each backend's tables; then writes the files.
   *
   * @return the number of jobs that failed
   */
  int run() throws IOException {
    Files.createDirectories(outDir);
    String started =
        DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm 'UTC'")
            .withZone(ZoneOffset.UTC)
            .format(Instant.now());
    out.println("benchmarks: " + profile.describe() + "; results in " + outDir);
    out.println("machine: " + Machine.describe());
    String loadBefore = Machine.loadAverage();
    out.println("load average before: " + loadBefore);
    int failed = 0;
    try (PrintStream log =
        new PrintStream(
            new FileOutputStream(outDir.resolve("jmh.log").toFile(), true),
            true,
            StandardCharsets.UTF_8)) {
      OutputFormat format = OutputFormatFactory.createFormatInstance(log, VerboseMode.NORMAL);
      int n = 0;
      StoreType current = null;
      for (Job job : jobs) {
        if (current != null && job.store != current) {
          printStore(current);
        }
        current = job.store;
        n++;
        out.printf(Locale.ROOT, "[%2d/%d] %-62s ", n, jobs.size(), job.title());
        out.flush();
        long began = System.nanoTime();
        try {
          Collection<RunResult> results = new Runner(options(job).build(), format).run();
          job.results.addAll(results);
          out.printf(
              Locale.ROOT,
              "%s  (%d s)%n",
              Report.summary(job),
              TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - began));
        } catch (RunnerException | RuntimeException e) {
          failed++;
          job.error = String.valueOf(e.getMessage());
          out.println("FAILED (see " + outDir.resolve("jmh.log") + "): " + job.error);
        }
      }
      if (current != null) {
        printStore(current);
      }
    }
    String loadAfter = Machine.loadAverage();
    out.println("load average after: " + loadAfter);
    Run run =
        new Run(
            profile,
            command,
            servers,
            started,
            Machine.describe(),
            loadBefore + " before, " + loadAfter + " after");
    List<RunResult> all = new ArrayList<>();
    jobs.forEach(job -> all.addAll(job.results));
    ResultFormatFactory.getInstance(
            ResultFormatType.JSON, outDir.resolve("results.json").toString())
        .writeOut(all);
    String heap =
        "Memory store heap per provisioned order (after a full GC): "
            + HeapPerOrder.measure(20_000)
            + " B with 20,000 orders, "
            + HeapPerOrder.measure(100_000)
            + " B with 100,000.";
    Files.writeString(
        outDir.resolve("results.md"),
        Report.markdown(run, stores, jobs, heap),
        StandardCharsets.UTF_8);
    Charts.write(outDir, run, Charts.Bars.of(stores, jobs, profile.threads()));
    out.println(heap);
    out.println();
    out.print(Report.Section.console(Report.summaries(stores, jobs)));
    out.println();
    out.println(Report.HOW_TO_READ);
    out.println();
    out.println("wrote, in " + outDir + ":");
    for (String file :
        List.of(
            "results.md", "results.json", Charts.THROUGHPUT, Charts.STORE_OVER_RAW, "jmh.log")) {
      out.println("  " + outDir.resolve(file));
    }
    return failed;
  }

  /** Prints a store's tables once its jobs are done. */
  private void printStore(StoreType store) {
    out.println();
    out.println(store.label() + ":");
    out.print(Report.Section.console(Report.ofStore(store, jobs)));
    out.println();
  }

  private ChainedOptionsBuilder options(Job job) {
    Kind kind = job.kind;
    ChainedOptionsBuilder options =
        new OptionsBuilder()
            .include(
                "^"
                    + Pattern.quote(kind.benchmark.getName() + ".")
                    + (kind.method == null ? ".*" : Pattern.quote(kind.method) + "$"))
            .forks(profile.forks())
            .warmupIterations(profile.warmupIterations())
            .warmupTime(profile.warmupTime())
            .measurementIterations(profile.measurementIterations())
            .measurementTime(profile.measurementTime())
            .jvmArgsAppend(
                "-Xms1g", "-Xmx4g", "-D" + Namespace.RUN_PROPERTY + "=" + Namespace.runId())
            .addProfiler(GCProfiler.class)
            .shouldFailOnError(true);
    if (kind == Kind.RAW) {
      options.param("baseline", RawBaseline.of(job.store).name());
    } else if (kind == Kind.PEER || kind == Kind.HOT_LOCK) {
      options.param("peer", job.peer.name());
    } else {
      options.param("backend", job.store.name());
    }
    // One mode per run: OptionsBuilder.mode adds to the list rather than replacing it.
    if (kind == Kind.LATENCY) {
      options.mode(Mode.SampleTime).timeUnit(TimeUnit.MICROSECONDS);
    } else {
      options.mode(Mode.Throughput).timeUnit(TimeUnit.SECONDS);
    }
    if (kind != Kind.STALE) {
      options.threads(job.threads);
    }
    return options;
  }
}
