package org.fencekit.bench;

import java.io.FileOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.function.ObjIntConsumer;
import java.util.function.ToDoubleFunction;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.profile.GCProfiler;
import org.openjdk.jmh.results.BenchmarkResult;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.results.format.ResultFormatFactory;
import org.openjdk.jmh.results.format.ResultFormatType;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.format.OutputFormat;
import org.openjdk.jmh.runner.format.OutputFormatFactory;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;

/**
 * The main job's benchmarks, through JMH's {@link Runner}. Each ratio is a paired comparison
 * ({@link PairedBenchmark}): the store and its raw baseline or peer alternate short trials in one
 * fork per round, rounds repeat until the ratio's interval is within ±10% or the profile's time is
 * spent ({@link #settle}), and the ratio is the median of the pairs' ratios ({@link Ratio}). The
 * latency beside each peer (one round of paired trials in JMH's sample mode, {@link Tail}), the
 * latency, hot-order and stale-write benchmarks run once each. Prints progress and each store's
 * tables, and writes {@code results.json} (JMH's JSON, every trial's score in it), {@code
 * results.md} and the two charts ({@link Charts}), with JMH's own log in {@code jmh.log}. Every
 * fork gets the main job's run id, so each benchmark's {@link Namespace} belongs to this run.
 */
final class Comparison {

  /** What one job measures: a paired comparison, or one benchmark class. */
  enum Kind {
    RAW("beside", PairedBenchmark.class, "overRaw"),
    PEER("beside", PairedBenchmark.class, "overPeer"),
    TAIL("latency beside", PairedBenchmark.class, "overPeer"),
    HOT_LOCK("one hot order beside one hot lock", PairedBenchmark.class, "hotOverLock"),
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

    boolean paired() {
      return benchmark == PairedBenchmark.class;
    }

    /**
     * Whether JMH samples each operation's time (its latency) rather than counting operations per
     * second: such a paired job gives percentiles ({@link Tail}), no throughput ratio.
     */
    boolean sampled() {
      return this == LATENCY || this == TAIL;
    }
  }

  /** One job: a paired comparison's rounds, or one JMH run; and what it gave. */
  static class Job {
    final StoreType store;
    final Kind kind;
    final Peer peer;
    final int threads;
    final List<RunResult> results = new ArrayList<>();
    String error;
    long overhead; // of a paired job's last round: its fork, setup and warmup, in nanoseconds

    /**
     * @param peer the peer of a {@link Kind#PEER}, {@link Kind#TAIL} or {@link Kind#HOT_LOCK} job,
     *     else null
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
          + (kind.paired() ? " " + beside() : "")
          + (kind == Kind.STALE ? "  (3 stale writers + 1 owner)" : "  " + threads + " thread(s)");
    }

    /** What a paired job's store is beside: its raw baseline's label or its peer's. */
    String beside() {
      return kind == Kind.RAW ? RawBaseline.of(store).label() : peer.label();
    }

    /** The speed target of a paired job's ratio; none for a latency comparison. */
    Target target() {
      return switch (kind) {
        case RAW -> Target.raw(store);
        case PEER -> Target.peer(store, peer);
        case HOT_LOCK -> Target.hot(store, peer);
        default -> Target.NONE;
      };
    }

    RunResult first() {
      return results.isEmpty() ? null : results.get(0);
    }

    /**
     * Whether a paired throughput job that ran is not yet settled: its interval wider than ±10% and
     * not clear of its target (a target the whole interval is above or below is decided). A latency
     * comparison runs one round only.
     */
    boolean unsettled() {
      Ratio ratio = ratio();
      return kind.paired()
          && !kind.sampled()
          && error == null
          && ratio.measured()
          && !ratio.precise()
          && !target().clearOf(ratio);
    }

    /**
     * The trials the interval's width says this comparison needs to be settled (the width shrinks
     * as one over the square root of the pairs), at least 8.
     */
    long trialsToSettle() {
      Ratio ratio = ratio();
      double width = Double.isNaN(ratio.low()) ? 2 : ratio.halfWidth() / Ratio.PRECISION;
      return Math.max(8, (long) Math.ceil(2 * ratio.pairs() * (1.2 * width * width - 1)));
    }

    /**
     * The trials of a further round: what it needs to be settled, but at most as many as its rounds
     * so far had (its pairs at most double before the need is judged again: an interval made wide
     * by a few outlying pairs overstates the need many times over), and at most what {@code share}
     * nanoseconds allow after the round's overhead; in whole ABBA blocks.
     */
    int trialsFor(long share, long trial) {
      long round = Math.min(trialsToSettle(), Math.max(8, 2L * ratio().pairs()));
      return (int) (Math.min(round, (share - overhead) / trial) / 4 * 4);
    }

    /** A paired job's ratio, from every round's pairs. */
    Ratio ratio() {
      return Ratio.of(
          rounds(it -> score(it, null))
              .flatMapToDouble(t -> Arrays.stream(Ratio.pairRatios(t)))
              .toArray());
    }

    /** A latency comparison's percentiles and ratios, from every round's trials. */
    Tail tail() {
      return Tail.of(
          threads,
          beside(),
          forks()
              .map(
                  fork ->
                      fork.getIterationResults().stream()
                          .map(it -> it.getPrimaryResult().getStatistics())
                          .toList())
              .toList());
    }

    /**
     * The median over side A's trials (the store) or B's, of the score ({@code secondary} null) or
     * of a secondary result ({@link Report#GC_NORM}); NaN without.
     */
    double median(boolean a, String secondary) {
      return Ratio.median(
          rounds(it -> score(it, secondary))
              .flatMapToDouble(t -> Arrays.stream(Ratio.side(t, a)))
              .sorted()
              .toArray());
    }

    /** Each fork's trials, in run order: a figure of each ({@code of}). */
    private Stream<double[]> rounds(ToDoubleFunction<IterationResult> of) {
      return forks().map(fork -> fork.getIterationResults().stream().mapToDouble(of).toArray());
    }

    /** Every round's fork. */
    private Stream<BenchmarkResult> forks() {
      return results.stream().flatMap(r -> r.getBenchmarkResults().stream());
    }

    private static double score(IterationResult it, String secondary) {
      var result =
          secondary == null ? it.getPrimaryResult() : it.getSecondaryResults().get(secondary);
      return result == null ? Double.NaN : result.getScore();
    }
  }

  private final Profile profile;
  private final List<StoreType> stores;
  private final Path outDir;
  private final PrintStream out;
  private final String command;
  private final String servers;
  private final List<Job> jobs = new ArrayList<>();
  private long pairedNanos;

  /**
   * @param command the command that ran, for results.md
   * @param servers the server variables that were set, for results.md
   * @param ratiosOnly only the paired comparisons that have a speed target (no latency, hot orders
   *     or storm)
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
      for (int t : profile.threads()) {
        add(new Job(store, Kind.RAW, null, t), ratiosOnly);
        for (Peer peer : Peer.of(store)) {
          add(new Job(store, Kind.PEER, peer, t), ratiosOnly);
        }
      }
      if (ratiosOnly) {
        continue;
      }
      for (Peer peer : Peer.hotOf(store)) {
        for (int t : profile.threads()) {
          jobs.add(new Job(store, Kind.HOT_LOCK, peer, t));
        }
      }
      for (Peer peer : Peer.of(store)) { // the tail under the most load only
        jobs.add(new Job(store, Kind.TAIL, peer, Collections.max(profile.threads())));
      }
      for (Kind kind : List.of(Kind.LATENCY, Kind.HOT)) {
        for (int t : profile.threads()) {
          jobs.add(new Job(store, kind, null, t));
        }
      }
      jobs.add(new Job(store, Kind.STALE, null, 4));
    }
  }

  private void add(Job job, boolean ratiosOnly) {
    if (!ratiosOnly || !Double.isNaN(job.target().minimum())) {
      jobs.add(job);
    }
  }

  /** The jobs, in the order they run. */
  List<Job> jobs() {
    return jobs;
  }

  /**
   * Runs every job, printing progress and each store's tables; then writes the files.
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
    String machine = machine();
    out.println("machine: " + machine);
    String loadBefore = loadAverage();
    out.println("load average before: " + loadBefore);
    long began = System.nanoTime();
    int failed = 0;
    try (PrintStream log =
        new PrintStream(
            new FileOutputStream(outDir.resolve("jmh.log").toFile(), true),
            true,
            StandardCharsets.UTF_8)) {
      OutputFormat format = OutputFormatFactory.createFormatInstance(log, VerboseMode.NORMAL);
      for (Job job : jobs) { // every job once: each comparison's first round
        failed += round(job, profile.trials(), format, jobs.indexOf(job) + 1);
      }
      int[] more = {0};
      settle(
          jobs,
          TimeUnit.SECONDS.toNanos(profile.budgetSeconds()),
          TimeUnit.MILLISECONDS.toNanos(profile.trialMillis()),
          () -> pairedNanos,
          (job, trials) -> more[0] += round(job, trials, format, 0));
      failed += more[0];
    }
    String loadAfter = loadAverage();
    out.printf(
        Locale.ROOT,
        "load average after: %s; %d s in all%n",
        loadAfter,
        TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - began));
    String load = loadBefore + " before, " + loadAfter + " after";
    Run run = new Run(profile, command, servers, started, machine, load);
    ResultFormatFactory.getInstance(
            ResultFormatType.JSON, outDir.resolve("results.json").toString())
        .writeOut(jobs.stream().flatMap(job -> job.results.stream()).toList());
    String heap =
        "Memory store heap per provisioned order (after a full GC): %s B with 20,000 orders, %s B"
                .formatted(HeapPerOrder.inOwnJvm(20_000), HeapPerOrder.inOwnJvm(100_000))
            + " with 100,000.";
    List<Report.Row> rows = Report.rows(jobs);
    Files.writeString(outDir.resolve("results.md"), Report.markdown(run, stores, jobs, heap));
    Charts.write(outDir, run, rows);
    out.println(heap);
    out.println();
    for (StoreType store : stores) {
      String tables = Report.ofStore(store, jobs, false);
      if (!tables.isEmpty()) {
        out.println("## " + store.label() + "\n\n" + tables);
      }
    }
    out.println("paired ratios:");
    out.print(Report.ratios(rows).render("  "));
    out.println();
    out.println(Report.HOW_TO_READ);
    out.println(Target.LEGEND);
    out.println();
    out.println("wrote, in " + outDir + ":");
    for (String file :
        List.of("results.md", "results.json", Charts.THROUGHPUT, Charts.RATIOS, "jmh.log")) {
      out.println("  " + outDir.resolve(file));
    }
    return failed;
  }

  /**
   * Spends what is left of {@code budget} (nanoseconds of paired rounds, {@code spent} so far) on
   * the comparisons not yet settled, in passes until every one is settled, the budget is spent, or
   * what is left buys no round of 8 trials. Each pass takes them in the order of the trials they
   * need, fewest first (a tight budget settles as many as it can), and gives each a round of what
   * it needs, at most doubling its pairs ({@link Job#trialsFor}), or of what is left. A comparison
   * whose interval is still too wide after its round comes again in the next pass.
   */
  static void settle(
      List<Job> jobs, long budget, long trial, LongSupplier spent, ObjIntConsumer<Job> round) {
    boolean ran = true;
    while (ran) {
      ran = false;
      List<Job> unsettled =
          jobs.stream()
              .filter(Job::unsettled)
              .sorted(Comparator.comparingLong(Job::trialsToSettle))
              .toList();
      for (Job job : unsettled) {
        int trials = job.trialsFor(budget - spent.getAsLong(), trial);
        if (trials >= 8) {
          round.accept(job, trials);
          ran = true;
        }
      }
    }
  }

  /**
   * Runs one round of {@code job} ({@code trials} trials if paired), with a line of progress.
   *
   * @param n the job's number in the first pass, 0 in the second
   * @return 1 if it failed, else 0
   */
  private int round(Job job, int trials, OutputFormat format, int n) {
    String step = n == 0 ? "[more]" : String.format(Locale.ROOT, "[%2d/%d]", n, jobs.size());
    out.printf(Locale.ROOT, "%-7s %-58s ", step, job.title());
    out.flush();
    long start = System.nanoTime();
    try {
      if (job.kind.paired()) {
        job.results.addAll(
            new Runner(options(job).measurementIterations(trials).build(), format).run());
        long took = System.nanoTime() - start;
        if (!job.kind.sampled()) { // the budget is the throughput comparisons'
          pairedNanos += took;
        }
        job.overhead = took - trials * TimeUnit.MILLISECONDS.toNanos(profile.trialMillis());
      } else {
        job.results.addAll(new Runner(options(job).build(), format).run());
      }
      out.printf(
          Locale.ROOT,
          "%s  (%d s)%n",
          Report.summary(job),
          TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start));
      return 0;
    } catch (RunnerException | RuntimeException e) {
      job.error = String.valueOf(e.getMessage());
      out.println("FAILED (see " + outDir.resolve("jmh.log") + "): " + job.error);
      return 1;
    }
  }

  private ChainedOptionsBuilder options(Job job) {
    Kind kind = job.kind;
    ChainedOptionsBuilder options =
        new OptionsBuilder()
            .include(
                "^"
                    + Pattern.quote(kind.benchmark.getName() + ".")
                    + (kind.method == null ? ".*" : Pattern.quote(kind.method) + "$"))
            .jvmArgsAppend(
                "-Xms1g", "-Xmx4g", "-D" + Namespace.RUN_PROPERTY + "=" + Namespace.runId())
            .addProfiler(GCProfiler.class)
            .shouldFailOnError(true)
            .param("backend", job.store.name());
    if (kind.paired()) {
      // one fork per round: both sides set up and warmed once, then alternating trials
      options
          .forks(Math.min(1, profile.forks()))
          .warmupIterations(profile.warmupTrials())
          .warmupTime(profile.trial())
          .measurementTime(profile.trial());
    } else {
      options
          .forks(profile.forks())
          .warmupIterations(profile.warmupIterations())
          .warmupTime(TimeValue.milliseconds(profile.iterationMillis()))
          .measurementIterations(profile.measurementIterations())
          .measurementTime(TimeValue.milliseconds(profile.iterationMillis()));
    }
    if (kind == Kind.RAW) {
      options.param("baseline", RawBaseline.of(job.store).name());
    } else if (job.peer != null) {
      options.param("peer", job.peer.name());
    }
    // One mode per run: OptionsBuilder.mode adds to the list rather than replacing it.
    if (kind.sampled()) {
      options.mode(Mode.SampleTime).timeUnit(TimeUnit.MICROSECONDS);
    } else {
      options.mode(Mode.Throughput).timeUnit(TimeUnit.SECONDS);
    }
    if (kind != Kind.STALE) {
      options.threads(job.threads);
    }
    return options;
  }

  /** A one-line description of the machine the figures were measured on. */
  static String machine() {
    return "%s, %s cores, %s %s, Java %s (%s)"
        .formatted(
            cpu(),
            Runtime.getRuntime().availableProcessors(),
            System.getProperty("os.name"),
            System.getProperty("os.version"),
            System.getProperty("java.version"),
            System.getProperty("java.vm.name"));
  }

  /** The 1, 5 and 15 minute load averages, or "unknown": other work on the machine shows here. */
  private static String loadAverage() {
    try {
      String[] fields = Files.readString(Path.of("/proc/loadavg")).trim().split(" ");
      return fields[0] + " " + fields[1] + " " + fields[2];
    } catch (IOException | RuntimeException e) {
      double load = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
      return load < 0 ? "unknown" : String.format(Locale.ROOT, "%.2f", load);
    }
  }

  private static String cpu() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
        if (line.startsWith("model name")) {
          return line.substring(line.indexOf(':') + 1).trim();
        }
      }
    } catch (IOException | RuntimeException e) {
      // not Linux: the core count and JVM still say something
    }
    return System.getProperty("os.arch");
  }
}
