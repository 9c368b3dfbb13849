package org.fencekit.bench;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.fencekit.bench.Comparison.Job;
import org.fencekit.bench.Comparison.Kind;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;

/** Turns the compare command's JMH results into tables: on the console and in results.md. */
final class Report {

  /** The outcome counters {@link HotOrderBenchmark.Outcomes} reports, in table order. */
  static final List<String> HOT_COUNTERS =
      List.of("claimed", "inFlight", "provisioned", "written", "superseded");

  private static final String GC_NORM = "gc.alloc.rate.norm";

  private Report() {}

  /** One line for the progress display. */
  static String summary(Job job) {
    RunResult r = job.first();
    if (r == null) {
      return "no result";
    }
    switch (job.kind) {
      case LATENCY:
        return "p50 " + micros(percentile(r, 50)) + " us, p99 " + micros(percentile(r, 99)) + " us";
      case HOT:
        {
          List<String> parts = new ArrayList<>();
          for (RunResult each : job.results) {
            parts.add(
                "K="
                    + each.getParams().getParam("orders")
                    + ": "
                    + rate(score(each))
                    + " calls/s, in-flight "
                    + rate(value(Comparison.secondary(each, "inFlight")))
                    + "/s");
          }
          return String.join("; ", parts);
        }
      case STALE:
        return rate(value(Comparison.secondary(r, "rejected")))
            + " rejected/s, "
            + rate(value(Comparison.secondary(r, "landed")))
            + " landed/s";
      default:
        return rate(score(r)) + " ops/s";
    }
  }

  /** Prints a backend's tables once its jobs are done. */
  static void printStore(java.io.PrintStream out, StoreType store, List<Job> jobs) {
    out.println();
    out.println(store.label() + ":");
    out.print(claimComplete(store, jobs).render("  "));
    out.print(hot(store, jobs).render("  "));
    out.print(stale(store, jobs).render("  "));
    out.println();
  }

  /** Fresh orders claimed and completed: throughput, latency, allocation, raw ratio. */
  static Table claimComplete(StoreType store, List<Job> jobs) {
    List<RawBaseline> baselines = baselines(store);
    List<String> header =
        new ArrayList<>(List.of("threads", "ops/s", "p50 us", "p99 us", "p99.9 us", "B/op"));
    for (RawBaseline b : baselines) {
      header.add(b.label() + " ops/s");
      header.add("store/" + b.label());
      header.add(b.label() + " B/op");
    }
    Table table = new Table(header.toArray(new String[0]));
    for (int t : threads(jobs, store)) {
      RunResult thrpt = find(jobs, store, Kind.THROUGHPUT, null, t);
      RunResult latency = find(jobs, store, Kind.LATENCY, null, t);
      List<String> row =
          new ArrayList<>(
              List.of(
                  Integer.toString(t),
                  rate(score(thrpt)),
                  micros(percentile(latency, 50)),
                  micros(percentile(latency, 99)),
                  micros(percentile(latency, 99.9)),
                  bytes(value(Comparison.secondary(thrpt, GC_NORM)))));
      for (RawBaseline b : baselines) {
        RunResult raw = find(jobs, store, Kind.RAW, b, t);
        row.add(rate(score(raw)));
        row.add(ratio(score(thrpt), score(raw)));
        row.add(bytes(value(Comparison.secondary(raw, GC_NORM))));
      }
      table.row(row);
    }
    return table;
  }

  /** Hot orders: calls per second and how they ended. */
  static Table hot(StoreType store, List<Job> jobs) {
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
      if (job.store != store || job.kind != Kind.HOT) {
        continue;
      }
      for (RunResult r : job.results) {
        List<String> row =
            new ArrayList<>(
                List.of(
                    Integer.toString(job.threads),
                    r.getParams().getParam("orders"),
                    rate(score(r))));
        for (String counter : HOT_COUNTERS) {
          row.add(rate(value(Comparison.secondary(r, counter))));
        }
        row.add(bytes(value(Comparison.secondary(r, GC_NORM))));
        table.row(row);
      }
    }
    return table;
  }

  /** The stale-write storm: rejections per second, and the stale writes that landed (none). */
  static Table stale(StoreType store, List<Job> jobs) {
    Table table =
        new Table("stale-write storm", "rejected/s", "landed/s", "owner heartbeats/s", "B/op");
    RunResult r = find(jobs, store, Kind.STALE, null, -1);
    if (r != null) {
      table.row(
          List.of(
              "3 stale writers, 1 owner, " + StaleWriteBenchmark.ORDERS + " live orders",
              rate(value(Comparison.secondary(r, "rejected"))),
              rate(value(Comparison.secondary(r, "landed"))),
              rate(value(Comparison.secondary(r, "heartbeats"))),
              bytes(value(Comparison.secondary(r, GC_NORM)))));
    }
    return table;
  }

  /** Stale writes that landed in the storm, over every store; must be 0. */
  static double landed(List<Job> jobs) {
    double landed = 0;
    for (Job job : jobs) {
      if (job.kind == Kind.STALE && job.first() != null) {
        double v = value(Comparison.secondary(job.first(), "landed"));
        landed += Double.isNaN(v) ? 0 : v;
      }
    }
    return landed;
  }

  /** The whole report, for results.md. */
  static String markdown(
      Profile profile,
      List<StoreType> stores,
      List<Job> jobs,
      long heapSmall,
      long heapLarge,
      String load) {
    StringBuilder md = new StringBuilder();
    md.append("# fencekit benchmarks\n\n");
    md.append("- when: ").append(Instant.now().truncatedTo(ChronoUnit.SECONDS)).append('\n');
    md.append("- machine: ").append(Machine.describe()).append("; ").append(load).append('\n');
    md.append("- ").append(profile.describe()).append('\n');
    md.append(
            "- command: `./mvnw -q package -DskipTests && java -jar benchmarks/target/fencekit-benchmarks.jar")
        .append(profile == Profile.FULL ? " --full" : "")
        .append("`\n");
    md.append(
        "- one op of claim+complete = one claim and one complete of a fresh order (two transactions"
            + " or scripts); ratios are store / raw baseline at the same thread count, in the same run\n\n");
    md.append("## Summary\n\n").append(summary(stores, jobs).render("")).append('\n');
    md.append("## Against the engines' own ceilings\n\n")
        .append(ceilings(stores, jobs).render(""))
        .append(
            "\nWrites/s counts each claim and each complete as one transaction (or script). Reference"
                + " ceilings are those of issue 5 for a 2-core machine.\n\nRaw baselines:\n\n");
    for (RawBaseline b : RawBaseline.values()) {
      md.append("- `").append(b.label()).append("`: ").append(b.description()).append('\n');
    }
    md.append('\n');
    for (StoreType store : stores) {
      md.append("## ").append(store.label()).append("\n\n");
      md.append("Claim + complete of fresh orders:\n\n")
          .append(claimComplete(store, jobs).render(""))
          .append('\n');
      md.append("Hot orders (lease 20 ms, every ")
          .append(HotOrderBenchmark.COMPLETE_EVERY)
          .append("th win completes, the rest fail):\n\n")
          .append(hot(store, jobs).render(""))
          .append('\n');
      md.append(stale(store, jobs).render("")).append('\n');
    }
    md.append("## Memory\n\n");
    md.append("Memory store heap per provisioned order (after a full GC): ")
        .append(heapSmall)
        .append(" B with 20,000 orders, ")
        .append(heapLarge)
        .append(" B with 100,000.\n");
    List<String> failed = new ArrayList<>();
    for (Job job : jobs) {
      if (job.error != null) {
        failed.add("- " + job.title() + ": " + job.error);
      }
    }
    if (!failed.isEmpty()) {
      md.append("\n## Failed runs\n\n").append(String.join("\n", failed)).append('\n');
    }
    return md.toString();
  }

  /** One row per backend: throughput and p99 at each thread count, ratio to the raw baseline. */
  static Table summary(List<StoreType> stores, List<Job> jobs) {
    List<Integer> threads = new ArrayList<>();
    for (Job job : jobs) {
      if (!threads.contains(job.threads) && job.kind == Kind.THROUGHPUT) {
        threads.add(job.threads);
      }
    }
    List<String> header = new ArrayList<>(List.of("backend"));
    threads.forEach(t -> header.add("ops/s t=" + t));
    threads.forEach(t -> header.add("p99 us t=" + t));
    threads.forEach(t -> header.add("/raw t=" + t));
    header.add("B/op");
    Table table = new Table(header.toArray(new String[0]));
    for (StoreType store : stores) {
      List<String> row = new ArrayList<>(List.of(store.label()));
      List<RawBaseline> baselines = baselines(store);
      RawBaseline raw = baselines.isEmpty() ? null : baselines.get(0);
      threads.forEach(t -> row.add(rate(score(find(jobs, store, Kind.THROUGHPUT, null, t)))));
      threads.forEach(
          t -> row.add(micros(percentile(find(jobs, store, Kind.LATENCY, null, t), 99))));
      threads.forEach(
          t ->
              row.add(
                  ratio(
                      score(find(jobs, store, Kind.THROUGHPUT, null, t)),
                      score(find(jobs, store, Kind.RAW, raw, t)))));
      row.add(
          bytes(
              value(
                  Comparison.secondary(
                      find(jobs, store, Kind.THROUGHPUT, null, threads.get(0)), GC_NORM))));
      table.row(row);
    }
    return table;
  }

  /** The engines' reference ceilings (issue 5, 2 cores), per thread count where known. */
  static Table ceilings(List<StoreType> stores, List<Job> jobs) {
    Table table =
        new Table(
            "backend",
            "threads",
            "store writes/s",
            "raw writes/s",
            "raw",
            "reference ceiling",
            "raw / ceiling",
            "store / ceiling");
    for (StoreType store : stores) {
      for (RawBaseline raw : baselines(store)) {
        for (int t : threads(jobs, store)) {
          double storeWrites = 2 * score(find(jobs, store, Kind.THROUGHPUT, null, t));
          double rawWrites = 2 * score(find(jobs, store, Kind.RAW, raw, t));
          Double ceiling = ceiling(raw, t);
          table.row(
              List.of(
                  store.label(),
                  Integer.toString(t),
                  rate(storeWrites),
                  rate(rawWrites),
                  raw.label(),
                  ceiling == null ? "-" : rate(ceiling),
                  ceiling == null ? "-" : ratio(rawWrites, ceiling),
                  ceiling == null ? "-" : ratio(storeWrites, ceiling)));
        }
      }
    }
    return table;
  }

  private static Double ceiling(RawBaseline raw, int threads) {
    switch (raw) {
      case SQLITE_JDBC:
      case SQLITE_NORMAL_JDBC:
        return 38_000.0;
      case POSTGRES_LOCKING_JDBC:
        return threads == 1 ? Double.valueOf(2_100) : threads == 16 ? Double.valueOf(8_700) : null;
      case POSTGRES_SINGLE_JDBC:
        return threads == 1 ? Double.valueOf(3_800) : threads == 16 ? Double.valueOf(18_000) : null;
      case REDIS_EVALSHA:
      case REDIS_CLUSTER_EVALSHA:
        return threads == 1
            ? Double.valueOf(15_000)
            : threads == 16 ? Double.valueOf(85_000) : null;
      default:
        return null;
    }
  }

  static List<RawBaseline> baselines(StoreType store) {
    List<RawBaseline> list = new ArrayList<>();
    for (RawBaseline b : RawBaseline.values()) {
      if (b.store() == store) {
        list.add(b);
      }
    }
    return list;
  }

  private static List<Integer> threads(List<Job> jobs, StoreType store) {
    List<Integer> threads = new ArrayList<>();
    for (Job job : jobs) {
      if (job.store == store && job.kind == Kind.THROUGHPUT) {
        threads.add(job.threads);
      }
    }
    return threads;
  }

  /** The result of the job of that kind (threads -1: any). */
  static RunResult find(
      List<Job> jobs, StoreType store, Kind kind, RawBaseline baseline, int threads) {
    for (Job job : jobs) {
      if (job.store == store
          && job.kind == kind
          && job.baseline == baseline
          && (threads < 0 || job.threads == threads)) {
        return job.first();
      }
    }
    return null;
  }

  static double score(RunResult r) {
    return r == null ? Double.NaN : r.getPrimaryResult().getScore();
  }

  static double value(Result<?> r) {
    return r == null ? Double.NaN : r.getScore();
  }

  static double percentile(RunResult r, double p) {
    return r == null ? Double.NaN : r.getPrimaryResult().getStatistics().getPercentile(p);
  }

  static String rate(double v) {
    return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%,.0f", v);
  }

  static String micros(double v) {
    if (Double.isNaN(v)) {
      return "-";
    }
    return String.format(Locale.ROOT, v >= 100 ? "%,.0f" : "%.1f", v);
  }

  static String bytes(double v) {
    return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%,.0f", v);
  }

  static String ratio(double a, double b) {
    return Double.isNaN(a) || Double.isNaN(b) || b == 0
        ? "-"
        : String.format(Locale.ROOT, "%.2f", a / b);
  }
}
