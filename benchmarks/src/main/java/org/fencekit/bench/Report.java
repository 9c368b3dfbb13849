package org.fencekit.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;
import org.fencekit.bench.Comparison.Job;
import org.fencekit.bench.Comparison.Kind;
import org.fencekit.bench.Figure.Ratio;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;

/**
 * Turns the main job's JMH results into tables, on the console and in results.md. Every figure is
 * shown with JMH's error, and every ratio with the interval those errors allow.
 */
final class Report {

  /** The outcome counters {@link HotOrderBenchmark.Outcomes} reports, in table order. */
  static final List<String> HOT_COUNTERS =
      List.of("claimed", "inFlight", "provisioned", "written", "superseded");

  /** The counter of {@link HotLockBenchmark.Wins}: attempts lost to another thread. */
  static final String LOST = "lost";

  /** JMH's GC profiler's allocation per operation. */
  static final String GC_NORM = "gc.alloc.rate.norm";

  /** How to read the figures, printed once under the tables. */
  static final String HOW_TO_READ =
      "Each figure is JMH's mean ± the half-width of its 99.9% confidence interval over the"
          + " measurement iterations (±? when the profile runs too few iterations to give one)."
          + " A ratio's ± comes from the two figures' intervals: from (a - error) / (b + error) to"
          + " (a + error) / (b - error). "
          + Ratio.NOISE
          + " marks a ratio whose interval includes 1.00: the difference is smaller than this"
          + " run's noise, so it cannot tell the two apart. (!) marks a store measured faster than"
          + " its own raw baseline beyond the noise, which the extra work a store does rules out:"
          + " the machine's load changed between the two runs, so rerun before reading it.";

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
        return job.results.stream()
            .map(
                result ->
                    "K=" + result.getParams().getParam("orders") + ": " + Figure.of(result).rate())
            .map(part -> part + " calls/s")
            .collect(Collectors.joining("; "));
      case HOT_CLAIM:
        return Figure.of(r).rate() + " claims won/s, " + counter(r, LOST).rate() + " lost/s";
      case HOT_LOCK:
        return Figure.of(r).rate() + " acquired/s, " + counter(r, LOST).rate() + " lost/s";
      case STALE:
        return counter(r, "rejected").rate()
            + " rejected/s, "
            + counter(r, "landed").rate()
            + " landed/s";
      default:
        return Figure.of(r).rate() + " ops/s";
    }
  }

  /**
   * A titled table of the report: on the console its title and the table, in results.md a heading
   * (or a paragraph), the note, and the table. An empty table is left out of both.
   *
   * @param note what to read it by, in results.md only; empty for none
   */
  record Section(String title, String note, Table table) {

    /** The sections as the console shows them: each title, then its table, indented. */
    static String console(List<Section> sections) {
      StringBuilder s = new StringBuilder();
      for (Section section : sections) {
        if (!section.table.isEmpty()) {
          s.append("  ").append(section.title).append(":\n").append(section.table.render("  "));
        }
      }
      return s.toString();
    }

    /** The sections for results.md, each headed by {@code heading} and its title. */
    static String markdown(String heading, List<Section> sections) {
      StringBuilder s = new StringBuilder();
      for (Section section : sections) {
        if (!section.table.isEmpty()) {
          s.append(heading).append(section.title).append("\n\n");
          if (!section.note.isEmpty()) {
            s.append(section.note).append("\n\n");
          }
          s.append(section.table.render("")).append('\n');
        }
      }
      return s.toString();
    }
  }

  /** A store's tables, shown as soon as its jobs are done and in its part of results.md. */
  static List<Section> ofStore(StoreType store, List<Job> jobs) {
    return List.of(
        new Section(
            "claim + complete of fresh orders (latency percentiles of JMH's samples)",
            "",
            claimComplete(store, jobs)),
        new Section("beside its peers (lock + unlock, a lock per thread)", "", peers(store, jobs)),
        new Section(
            "hot orders (lease 20 ms, every "
                + HotOrderBenchmark.COMPLETE_EVERY
                + "th win completes, the rest fail)",
            "",
            hot(store, jobs)),
        new Section("the stale-write storm", "", stale(store, jobs)));
  }

  /** The tables over every store, shown at the end and at the top of results.md. */
  static List<Section> summaries(List<StoreType> stores, List<Job> jobs) {
    return List.of(
        new Section("Summary", "", summary(stores, jobs)),
        new Section(
            "fencekit / peer beside fencekit / raw, against the speed targets",
            Target.LEGEND,
            targets(stores, jobs)),
        new Section(
            "one hot order, claims won, beside one hot lock's acquisitions",
            "One hot order beside one hot lock: every thread claims the same order (the winner fails it at once, every "
                + HotOrderBenchmark.COMPLETE_EVERY
                + "th win completes it and a fresh order is the hot one), against every thread"
                + " trying the same lock without waiting (the winner unlocks at once); claims won"
                + " per second over locks acquired per second.",
            hotPeers(stores, jobs)),
        new Section("PostgreSQL: fast path over locking transactions", "", fastPath(jobs)));
  }

  /**
   * One row per store and thread count: throughput beside the raw baseline's, their ratio, p99
   * latency and allocation.
   */
  static Table summary(List<StoreType> stores, List<Job> jobs) {
    Table table =
        new Table(
            "store", "threads", "ops/s", "raw ops/s", "store / raw", "p99 us", "B/op", "raw B/op");
    for (StoreType store : stores) {
      for (int t : threads(jobs, store)) {
        RunResult thrpt = find(jobs, store, Kind.THROUGHPUT, null, t);
        RunResult base = find(jobs, store, Kind.RAW, null, t);
        table.row(
            store.label(),
            Integer.toString(t),
            Figure.of(thrpt).rate(),
            Figure.of(base).rate(),
            storeOverRaw(Figure.of(thrpt).over(Figure.of(base))),
            micros(percentile(find(jobs, store, Kind.LATENCY, null, t), 99)),
            counter(thrpt, GC_NORM).rate(),
            counter(base, GC_NORM).rate());
      }
    }
    return table;
  }

  /** Fresh orders claimed and completed: throughput, latency, allocation, raw ratio. */
  static Table claimComplete(StoreType store, List<Job> jobs) {
    RawBaseline raw = RawBaseline.of(store);
    Table table =
        new Table(
            "threads",
            "ops/s",
            "p50 us",
            "p99 us",
            "p99.9 us",
            "B/op",
            raw.label() + " ops/s",
            "store / raw",
            raw.label() + " B/op");
    for (int t : threads(jobs, store)) {
      RunResult thrpt = find(jobs, store, Kind.THROUGHPUT, null, t);
      RunResult latency = find(jobs, store, Kind.LATENCY, null, t);
      RunResult base = find(jobs, store, Kind.RAW, null, t);
      table.row(
          Integer.toString(t),
          Figure.of(thrpt).rate(),
          micros(percentile(latency, 50)),
          micros(percentile(latency, 99)),
          micros(percentile(latency, 99.9)),
          counter(thrpt, GC_NORM).rate(),
          Figure.of(base).rate(),
          storeOverRaw(Figure.of(thrpt).over(Figure.of(base))),
          counter(base, GC_NORM).rate());
    }
    return table;
  }

  /** A store's claim + complete beside each of its peers' lock + unlock, per thread count. */
  static Table peers(StoreType store, List<Job> jobs) {
    Table table =
        new Table("threads", "ops/s", "peer", "peer ops/s", "fencekit / peer", "peer B/op");
    for (int t : threads(jobs, store)) {
      Figure fencekit = Figure.of(find(jobs, store, Kind.THROUGHPUT, null, t));
      for (Peer peer : Peer.of(store)) {
        RunResult r = find(jobs, store, Kind.PEER, peer, t);
        if (r == null) {
          continue;
        }
        table.row(
            Integer.toString(t),
            fencekit.rate(),
            peer.label(),
            Figure.of(r).rate(),
            fencekit.over(Figure.of(r)).text(),
            counter(r, GC_NORM).rate());
      }
    }
    return table;
  }

  /**
   * The speed targets (issue 13), one row per store, thread count and peer: fencekit / peer beside
   * fencekit / raw, each with its interval and whether that interval is above its target (met),
   * below it (missed), or spans it (open: this run cannot tell).
   */
  static Table targets(List<StoreType> stores, List<Job> jobs) {
    Table table =
        new Table(
            "store",
            "threads",
            "ops/s",
            "peer",
            "fencekit / peer",
            "target",
            "fencekit / raw",
            "target",
            "B/op over raw");
    for (StoreType store : stores) {
      for (int t : threads(jobs, store)) {
        RunResult thrpt = find(jobs, store, Kind.THROUGHPUT, null, t);
        Figure fencekit = Figure.of(thrpt);
        RunResult base = find(jobs, store, Kind.RAW, null, t);
        Ratio overRaw = fencekit.over(Figure.of(base));
        String rawTarget = Target.raw(store).verdict(overRaw);
        String alloc = counter(thrpt, GC_NORM).over(counter(base, GC_NORM)).text();
        List<Peer> peers = new ArrayList<>(Peer.of(store));
        if (peers.isEmpty()) {
          peers.add(null); // a row without a peer, for the raw ratio
        }
        for (Peer peer : peers) {
          Ratio overPeer =
              peer == null
                  ? Ratio.NONE
                  : fencekit.over(Figure.of(find(jobs, store, Kind.PEER, peer, t)));
          table.row(
              store.label(),
              Integer.toString(t),
              fencekit.rate(),
              peer == null ? "-" : peer.label(),
              overPeer.text(),
              peer == null ? "-" : Target.peer(store, peer).verdict(overPeer),
              overRaw.text(),
              rawTarget,
              alloc);
        }
      }
    }
    return table;
  }

  /**
   * One hot order beside one hot lock (issue 13's "claims won on a hot order"), one row per store,
   * thread count and peer: the store's claims won per second over the peer's acquisitions per
   * second, with its interval and its target's verdict. The attempts lost per second are in the
   * progress line and results.json, not here: a JMH auxiliary counter, whose rate can blow up in an
   * iteration where a spinning thread measured almost no time of its own.
   */
  static Table hotPeers(List<StoreType> stores, List<Job> jobs) {
    Table table =
        new Table(
            "store",
            "threads",
            "claims won/s",
            "peer",
            "acquired/s",
            "fencekit / peer, hot",
            "target");
    for (StoreType store : stores) {
      for (Job job : jobs) {
        if (job.store != store || job.kind != Kind.HOT_CLAIM) {
          continue;
        }
        RunResult peer = find(jobs, store, Kind.HOT_LOCK, job.peer, job.threads);
        if (job.first() == null && peer == null) {
          continue;
        }
        Figure won = Figure.of(job.first());
        Figure acquired = Figure.of(peer);
        Ratio ratio = won.over(acquired);
        table.row(
            store.label(),
            Integer.toString(job.threads),
            won.rate(),
            job.peer.label(),
            acquired.rate(),
            ratio.text(),
            Target.hot(store, job.peer).verdict(ratio));
      }
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
                    Figure.of(r).rate()));
        for (String name : HOT_COUNTERS) {
          row.add(counter(r, name).rate());
        }
        row.add(counter(r, GC_NORM).rate());
        table.row(row.toArray(new String[0]));
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
          "3 stale writers, 1 owner, " + StaleWriteBenchmark.ORDERS + " live orders",
          counter(r, "rejected").rate(),
          counter(r, "landed").rate(),
          counter(r, "heartbeats").rate(),
          counter(r, GC_NORM).rate());
    }
    return table;
  }

  /**
   * PostgreSQL's single-statement fast path over its locking transactions, when both ran: claim +
   * complete of fresh orders, and hot orders (calls per second), per thread count.
   */
  static Table fastPath(List<Job> jobs) {
    Table table = new Table("workload", "threads", "fast path", "locking only", "fast / locking");
    for (int t : threads(jobs, StoreType.POSTGRES)) {
      Figure fast = Figure.of(find(jobs, StoreType.POSTGRES, Kind.THROUGHPUT, null, t));
      Figure locking = Figure.of(find(jobs, StoreType.POSTGRES_LOCKING, Kind.THROUGHPUT, null, t));
      if (fast.measured() && locking.measured()) {
        table.row(
            "claim + complete, fresh orders",
            Integer.toString(t),
            fast.rate(),
            locking.rate(),
            fast.over(locking).text());
      }
    }
    for (Job job : jobs) {
      if (job.store != StoreType.POSTGRES || job.kind != Kind.HOT) {
        continue;
      }
      for (RunResult r : job.results) {
        String orders = r.getParams().getParam("orders");
        RunResult other = hotResult(jobs, StoreType.POSTGRES_LOCKING, job.threads, orders);
        if (other != null) {
          table.row(
              "claim, settle if won, " + orders + " hot order(s)",
              Integer.toString(job.threads),
              Figure.of(r).rate(),
              Figure.of(other).rate(),
              Figure.of(r).over(Figure.of(other)).text());
        }
      }
    }
    return table;
  }

  /** Stale writes that landed in the storm, over every store; must be 0. */
  static double landed(List<Job> jobs) {
    return jobs.stream()
        .filter(job -> job.kind == Kind.STALE)
        .mapToDouble(job -> counter(job.first(), "landed").score())
        .filter(landed -> !Double.isNaN(landed))
        .sum();
  }

  /** Whether any job measured anything. */
  static boolean measuredAnything(List<Job> jobs) {
    return jobs.stream().anyMatch(job -> job.first() != null);
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
            + " statements or scripts through the bare driver, at the same thread count, in the"
            + " same run\n\n");
    md.append(HOW_TO_READ).append("\n\n");
    md.append(Section.markdown("## ", summaries(stores, jobs)));
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
      md.append(Section.markdown("### ", ofStore(store, jobs)));
    }
    md.append("## Memory\n\n").append(heap).append('\n');
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

  /** A store / raw ratio as text, marked (!) when the store beat its baseline beyond the noise. */
  static String storeOverRaw(Ratio ratio) {
    return ratio.text() + (ratio.intervalKnown() && ratio.low() > 1 ? " (!)" : "");
  }

  /** The thread counts {@code store}'s claim + complete ran at, in run order. */
  static List<Integer> threads(List<Job> jobs, StoreType store) {
    return jobs.stream()
        .filter(j -> j.store == store && j.kind == Kind.THROUGHPUT)
        .map(j -> j.threads)
        .toList();
  }

  /** The first result of the job of that kind, with that peer or none (threads -1: any). */
  static RunResult find(List<Job> jobs, StoreType store, Kind kind, Peer peer, int threads) {
    return jobs.stream()
        .filter(j -> j.store == store && j.kind == kind && j.peer == peer)
        .filter(j -> threads < 0 || j.threads == threads)
        .findFirst()
        .map(Job::first)
        .orElse(null);
  }

  /** The hot-orders result of {@code store} at {@code threads} with {@code orders} hot orders. */
  private static RunResult hotResult(List<Job> jobs, StoreType store, int threads, String orders) {
    return jobs.stream()
        .filter(j -> j.store == store && j.kind == Kind.HOT && j.threads == threads)
        .flatMap(j -> j.results.stream())
        .filter(r -> orders.equals(r.getParams().getParam("orders")))
        .findFirst()
        .orElse(null);
  }

  /** A secondary result (an aux counter, a profiler's figure) by its name. */
  static Figure counter(RunResult result, String name) {
    return Figure.of(secondary(result, name));
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
}
