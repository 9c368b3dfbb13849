package org.fencekit.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;
import org.fencekit.bench.Comparison.Job;
import org.fencekit.bench.Comparison.Kind;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;

/**
 * Turns the main job's results into tables, on the console and in results.md: the paired ratios
 * ({@link Ratio}) with their intervals and targets, and the other benchmarks' figures with JMH's
 * error.
 */
final class Report {

  /** The outcome counters {@link HotOrderBenchmark.Outcomes} reports, in table order. */
  static final List<String> HOT_COUNTERS =
      List.of("claimed", "inFlight", "provisioned", "written", "superseded");

  /** The counter of {@link HotLock.Wins}: attempts lost to another thread. */
  static final String LOST = "lost";

  /** JMH's GC profiler's allocation per operation. */
  static final String GC_NORM = "gc.alloc.rate.norm";

  /** How to read the figures, printed once under the tables. */
  static final String HOW_TO_READ =
      "Each ratio comes from paired trials: the store (A) and what it is beside (B) ran in one JMH"
          + " fork per round, both set up and warmed once, then short trials alternating A, B, B,"
          + " A, A, B...; each pair of trials in a row gives one ratio A / B, and the figure is the"
          + " median of those ratios with its 95% interval (the order statistics of a sign test,"
          + " valid for any distribution of independent pairs) and the interval's half-width over"
          + " the median. The ops/s and B/op beside it are the medians of each side's trials. The"
          + " latency beside a peer pairs trials the same way in JMH's sample mode: each side's"
          + " percentiles are of its samples over all its trials, each ratio store / peer the"
          + " median of the pairs' ratios of their trials' own percentile (lower is better). The"
          + " latency, hot-order and stale-write figures are JMH's mean ± the half-width of its"
          + " 99.9% confidence interval (±? when too few iterations give none).";

  private Report() {}

  /** One line for the progress display. */
  static String summary(Job job) {
    RunResult r = job.first();
    if (r == null) {
      return "no result";
    }
    return switch (job.kind) {
      case LATENCY ->
          "p50 " + micros(percentile(r, 50)) + " us, p99 " + micros(percentile(r, 99)) + " us";
      case HOT ->
          job.results.stream()
              .map(
                  it ->
                      "K=" + it.getParams().getParam("orders") + ": " + rate(it.getPrimaryResult()))
              .collect(Collectors.joining(" calls/s; ", "", " calls/s"));
      case STALE -> counter(r, "rejected") + " rejected/s, " + counter(r, "landed") + " landed/s";
      case TAIL -> tail(job.tail());
      default -> job.ratio().text() + ", " + job.target().verdict(job.ratio());
    };
  }

  /** A latency comparison in one line: each percentile store / peer, and its paired ratio. */
  private static String tail(Tail tail) {
    return "p50 %s / %s us: %s; p99 %s / %s us: %s"
        .formatted(
            micros(Tail.percentile(tail.store(), 50)),
            micros(Tail.percentile(tail.peer(), 50)),
            tail.p50().text(),
            micros(Tail.percentile(tail.store(), 99)),
            micros(Tail.percentile(tail.peer(), 99)),
            tail.p99().text());
  }

  /**
   * A paired comparison as the report and the charts show it.
   *
   * @param store the store's label, with "one hot order" for a hot-lock comparison
   * @param threads the thread count
   * @param beside what it is beside: a raw baseline's or a peer's label
   * @param ops the median of the store's trials, ops/s (claims won/s on a hot order)
   * @param besideOps the median of the other side's trials
   * @param ratio the paired ratio
   * @param target its target
   * @param bytes the median of the store's trials' allocation per op, NaN without
   * @param besideBytes the other side's
   */
  record Row(
      String store,
      int threads,
      String beside,
      double ops,
      double besideOps,
      Ratio ratio,
      Target target,
      double bytes,
      double besideBytes) {}

  /** The paired throughput jobs' rows, in run order (no latency comparison: no ratio of ops/s). */
  static List<Row> rows(List<Job> jobs) {
    List<Row> rows = new ArrayList<>();
    for (Job job : jobs) {
      if (job.kind.paired() && !job.kind.sampled() && job.first() != null) {
        boolean hot = job.kind == Kind.HOT_LOCK;
        rows.add(
            new Row(
                job.store.label() + (hot ? ", one hot order" : ""),
                job.threads,
                job.beside() + (hot ? ", one hot lock" : ""),
                job.median(true, null),
                job.median(false, null),
                job.ratio(),
                job.target(),
                job.median(true, GC_NORM),
                job.median(false, GC_NORM)));
      }
    }
    return rows;
  }

  /** The ratios, one row per paired comparison, against their speed targets. */
  static Table ratios(List<Row> rows) {
    Table table =
        new Table(
            "store",
            "threads",
            "beside",
            "median ops/s",
            "its ops/s",
            "store / beside [95%]",
            "pairs",
            "target",
            "B/op",
            "its B/op");
    for (Row row : rows) {
      table.row(
          row.store(),
          Integer.toString(row.threads()),
          row.beside(),
          whole(row.ops()),
          whole(row.besideOps()),
          row.ratio().text(),
          Integer.toString(row.ratio().pairs()),
          row.target().verdict(row.ratio()),
          whole(row.bytes()),
          whole(row.besideBytes()));
    }
    return table;
  }

  /**
   * A store's tables, each under a {@code ###} heading: its part of results.md, and on the console
   * without the ratios (shown there in one table).
   */
  static String ofStore(StoreType store, List<Job> jobs, boolean ratios) {
    List<Job> own = jobs.stream().filter(job -> job.store == store).toList();
    StringBuilder s = new StringBuilder();
    for (Map.Entry<String, Table> section :
        List.of(
            Map.entry("paired ratios", ratios ? ratios(rows(own)) : new Table("none")),
            Map.entry("claim + complete latency (percentiles of JMH's samples)", latency(own)),
            Map.entry(
                "claim + complete latency beside a peer's lock + unlock (paired trials; lower is"
                    + " better)",
                tails(
                    own.stream()
                        .filter(job -> job.kind == Kind.TAIL && job.first() != null)
                        .map(Job::tail)
                        .toList())),
            Map.entry(
                "hot orders (lease 20 ms, every "
                    + HotOrderBenchmark.COMPLETE_EVERY
                    + "th win completes, the rest fail)",
                hot(own)),
            Map.entry("the stale-write storm", stale(own)))) {
      if (!section.getValue().isEmpty()) {
        s.append("### ").append(section.getKey()).append("\n\n");
        s.append(section.getValue().render("")).append('\n');
      }
    }
    return s.toString();
  }

  /** Claim + complete latency percentiles, per thread count. */
  static Table latency(List<Job> jobs) {
    Table table = new Table("threads", "p50 us", "p99 us", "p99.9 us");
    for (Job job : jobs) {
      if (job.kind == Kind.LATENCY && job.first() != null) {
        table.row(
            Integer.toString(job.threads),
            micros(percentile(job.first(), 50)),
            micros(percentile(job.first(), 99)),
            micros(percentile(job.first(), 99.9)));
      }
    }
    return table;
  }

  /**
   * Claim + complete latency beside each peer's lock + unlock: each side's percentiles over its
   * trials, and the paired ratios store / peer of the trials' p50 and p99 (lower is better).
   */
  static Table tails(List<Tail> tails) {
    Table table =
        new Table(
            "threads",
            "beside",
            "store p50 us",
            "peer p50 us",
            "p50 store / peer [95%]",
            "store p99 us",
            "peer p99 us",
            "p99 store / peer [95%]",
            "store p99.9 us",
            "peer p99.9 us",
            "pairs");
    for (Tail tail : tails) {
      table.row(
          Integer.toString(tail.threads()),
          tail.beside(),
          micros(Tail.percentile(tail.store(), 50)),
          micros(Tail.percentile(tail.peer(), 50)),
          tail.p50().text(),
          micros(Tail.percentile(tail.store(), 99)),
          micros(Tail.percentile(tail.peer(), 99)),
          tail.p99().text(),
          micros(Tail.percentile(tail.store(), 99.9)),
          micros(Tail.percentile(tail.peer(), 99.9)),
          Integer.toString(tail.p99().pairs()));
    }
    return table;
  }

  /** Hot orders: calls per second and how they ended. */
  static Table hot(List<Job> jobs) {
    Table table =
        new Table(
            "threads",
            "hot orders",
            "calls/s",
            "claimed/s",
            "in-flight/s",
            "provisioned/s",
            "written/s",
            "superseded/s",
            "B/call");
    for (Job job : jobs) {
      if (job.kind != Kind.HOT) {
        continue;
      }
      for (RunResult r : job.results) {
        List<String> row =
            new ArrayList<>(
                List.of(
                    Integer.toString(job.threads),
                    r.getParams().getParam("orders"),
                    rate(r.getPrimaryResult())));
        HOT_COUNTERS.forEach(name -> row.add(counter(r, name)));
        row.add(counter(r, GC_NORM));
        table.row(row.toArray(new String[0]));
      }
    }
    return table;
  }

  /** The stale-write storm: rejections per second, and the stale writes that landed (none). */
  static Table stale(List<Job> jobs) {
    Table table =
        new Table("stale-write storm", "rejected/s", "landed/s", "owner heartbeats/s", "B/op");
    for (Job job : jobs) {
      if (job.kind == Kind.STALE && job.first() != null) {
        RunResult r = job.first();
        table.row(
            "3 stale writers, 1 owner, " + StaleWriteBenchmark.ORDERS + " live orders",
            counter(r, "rejected"),
            counter(r, "landed"),
            counter(r, "heartbeats"),
            counter(r, GC_NORM));
      }
    }
    return table;
  }

  /** Stale writes that landed in the storm, over every store; must be 0. */
  static double landed(List<Job> jobs) {
    return jobs.stream()
        .filter(job -> job.kind == Kind.STALE)
        .map(job -> secondary(job.first(), "landed"))
        .mapToDouble(landed -> landed == null ? Double.NaN : landed.getScore())
        .filter(landed -> !Double.isNaN(landed))
        .sum();
  }

  /** The whole report, for results.md. */
  static String markdown(Run run, List<StoreType> stores, List<Job> jobs, String heap) {
    StringBuilder md = new StringBuilder();
    md.append("# fencekit benchmarks\n\n");
    md.append("- when: ").append(run.started()).append('\n');
    md.append("- machine: ").append(run.machine()).append('\n');
    md.append("- load average (1, 5, 15 min): ").append(run.load()).append('\n');
    md.append("- ").append(run.profile().describe()).append('\n');
    md.append("- command: `").append(run.command()).append("`\n");
    md.append("- servers: ").append(run.servers()).append('\n');
    md.append(
        "- one op of claim + complete = one claim and one complete of a fresh order (two"
            + " transactions or two scripts); the raw baseline does the same with the store's own"
            + " statements or scripts through the bare driver; a peer's op is one lock and one"
            + " unlock\n\n");
    md.append(HOW_TO_READ).append(' ').append(Target.LEGEND).append("\n\n");
    md.append("## Ratios\n\n").append(ratios(rows(jobs)).render("")).append('\n');
    md.append("Peers:\n\n");
    for (Peer peer : Peer.values()) {
      md.append("- `").append(peer.label()).append("`: ").append(peer.description()).append('\n');
    }
    md.append("\nRaw baselines:\n\n");
    for (StoreType store : stores) {
      RawBaseline b = RawBaseline.of(store);
      md.append("- `").append(b.label()).append("`: ").append(b.description()).append('\n');
    }
    md.append('\n');
    for (StoreType store : stores) {
      md.append("## ").append(store.label()).append("\n\n");
      md.append(ofStore(store, jobs, true));
    }
    md.append("## Memory\n\n").append(heap).append('\n');
    List<String> failed =
        jobs.stream()
            .filter(job -> job.error != null)
            .map(job -> "- " + job.title() + ": " + job.error)
            .toList();
    if (!failed.isEmpty()) {
      md.append("\n## Failed runs\n\n").append(String.join("\n", failed)).append('\n');
    }
    return md.toString();
  }

  /** A secondary result (an aux counter, a profiler's figure) by its name, as {@link #rate}. */
  static String counter(RunResult result, String name) {
    return rate(secondary(result, name));
  }

  /**
   * A JMH figure, whole, with the half-width of its 99.9% interval over the iterations: {@code
   * 3,054 ±120}, {@code 3,054 ±?} when too few iterations give none, or {@code -}.
   */
  static String rate(Result<?> result) {
    if (result == null || Double.isNaN(result.getScore())) {
      return "-";
    }
    double error = result.getScoreError();
    return whole(result.getScore())
        + (Double.isNaN(error) ? " ±?" : String.format(Locale.ROOT, " ±%,.0f", error));
  }

  /** A secondary result by its name ({@code landed}, {@link #GC_NORM}), or null. */
  static Result<?> secondary(RunResult result, String name) {
    return result == null ? null : result.getSecondaryResults().get(name);
  }

  static double percentile(RunResult r, double p) {
    return r == null ? Double.NaN : r.getPrimaryResult().getStatistics().getPercentile(p);
  }

  static String micros(double v) {
    if (Double.isNaN(v)) {
      return "-";
    }
    return String.format(Locale.ROOT, v >= 100 ? "%,.0f" : "%.1f", v);
  }

  /** {@code 3,054}, or {@code -} for NaN. */
  static String whole(double v) {
    return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%,.0f", v);
  }
}
