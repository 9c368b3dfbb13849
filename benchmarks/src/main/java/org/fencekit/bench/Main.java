package org.fencekit.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.fencekit.store.OrderStore;
import org.fencekit.store.sqlite.SqliteOrderStore;

/**
 * The main job, in two parts.
 *
 * <ol>
 *   <li>Replays the incident and the seed's other scenarios against every available store and
 *       prints what each store did as a table. If any store let a stale write land, it stops there
 *       with status 1.
 *   <li>Compares the stores: runs the JMH benchmarks ({@link ClaimCompleteBenchmark}, {@link
 *       RawBaselineBenchmark}, {@link HotOrderBenchmark}, {@link StaleWriteBenchmark}) on every
 *       available store with a short profile, showing progress, prints a table per backend, and
 *       writes {@code results.json} (JMH), {@code results.md} and {@code throughput.png} to {@code
 *       benchmarks/results/<timestamp>/}. Status 1 if a stale write landed during the storm, 2 if a
 *       store could not be opened or a run failed.
 * </ol>
 *
 * <p>Run it with {@code ./mvnw -q package -DskipTests && java -jar
 * benchmarks/target/fencekit-benchmarks.jar}. Set {@code FENCEKIT_POSTGRES_URL}, {@code
 * FENCEKIT_REDIS_URL} and {@code FENCEKIT_REDIS_CLUSTER_NODES} to include the servers. Flags:
 * {@code --full} (the longer, more precise profile), {@code --out DIR}, {@code --only
 * memory,sqlite,...}, {@code --replay-only}, {@code --smoke} (everything for a moment, in this JVM:
 * a check of the pipeline, not a measurement), {@code --help}.
 */
public final class Main {

  static final String USAGE =
      String.join(
          "\n",
          "usage: java -jar benchmarks/target/fencekit-benchmarks.jar [--full | --smoke] [--out DIR]",
          "           [--only memory,sqlite,sqlite-normal,postgres,postgres-locking,redis,redis-cluster] [--replay-only]",
          "  replays the incident against every available store, then benchmarks them (JMH).",
          "  --full         the longer, more precise profile (default: a short one)",
          "  --smoke        every benchmark for a moment in this JVM: checks the pipeline, measures nothing",
          "  --out DIR      where to write results.json, results.md, throughput.png (default:",
          "                 benchmarks/results/<UTC timestamp>)",
          "  --only LIST    only these stores (labels as in the tables)",
          "  --replay-only  the replay, no benchmarks",
          "  servers: FENCEKIT_POSTGRES_URL, FENCEKIT_REDIS_URL, FENCEKIT_REDIS_CLUSTER_NODES");

  private Main() {}

  /** Runs the main job; see the class javadoc for the exit status. */
  public static void main(String[] args) {
    System.exit(run(args, System.out));
  }

  /** The main job with {@code args}; returns the exit status. */
  static int run(String[] args, PrintStream out) {
    Profile profile = Profile.SHORT;
    Path outDir = null;
    List<StoreType> only = null;
    boolean replayOnly = false;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--full":
          profile = Profile.FULL;
          break;
        case "--smoke":
          profile = Profile.SMOKE;
          break;
        case "--replay-only":
          replayOnly = true;
          break;
        case "--out":
          if (i + 1 == args.length) {
            out.println("--out needs a directory\n" + USAGE);
            return 64;
          }
          outDir = Path.of(args[++i]);
          break;
        case "--only":
          if (i + 1 == args.length) {
            out.println("--only needs a list of stores\n" + USAGE);
            return 64;
          }
          only = new ArrayList<>();
          for (String label : args[++i].split(",")) {
            StoreType type = StoreType.byLabel(label.trim());
            if (type == null) {
              out.println("--only: no store called '" + label.trim() + "'\n" + USAGE);
              return 64;
            }
            only.add(type);
          }
          break;
        case "--help":
        case "-h":
          out.println(USAGE);
          return 0;
        default:
          out.println("unknown argument '" + args[i] + "'\n" + USAGE);
          return 64;
      }
    }
    List<StoreType> stores = new ArrayList<>();
    for (StoreType type : StoreType.values()) {
      if (only == null || only.contains(type)) {
        stores.add(type);
      }
    }
    int replay = replay(out, stores);
    if (replay != 0 || replayOnly) {
      return replay;
    }
    List<StoreType> available = new ArrayList<>();
    for (StoreType type : stores) {
      if (type.available()) {
        available.add(type);
      } else {
        out.println("benchmarks: " + type.absence());
      }
    }
    if (outDir == null) {
      outDir =
          Path.of(
              "benchmarks",
              "results",
              DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")
                  .withZone(ZoneOffset.UTC)
                  .format(Instant.now()));
    }
    System.setProperty("jmh.ignoreLock", "true");
    Comparison comparison = new Comparison(profile, available, outDir, out);
    int failed;
    try {
      failed = comparison.run();
    } catch (IOException e) {
      out.println("ERROR could not write the results to " + outDir + ": " + e);
      return 2;
    }
    double landed = Report.landed(comparison.jobs());
    if (landed > 0) {
      out.println(
          "A stale write LANDED during the storm (" + landed + "/s): see the stale-write tables.");
      return 1;
    }
    if (failed > 0) {
      out.println(failed + " benchmark run(s) failed: see " + outDir.resolve("jmh.log"));
      return 2;
    }
    return 0;
  }

  /** The replay of part 1: 0 if every stale write was fenced off, 1 if one landed, 2 on errors. */
  static int replay(PrintStream out, List<StoreType> stores) {
    out.println("fencekit: replaying \"A lease is not a fence\" against every available store");
    Map<StoreType, List<IncidentReplay.Outcome>> results = new LinkedHashMap<>();
    List<String> problems = new ArrayList<>();
    for (StoreType type : stores) {
      if (!type.available()) {
        out.println("  " + type.absence());
        continue;
      }
      ManualClock clock = new ManualClock(Instant.parse("2026-09-14T12:00:00Z"));
      Path file = null;
      try (OrderStore store = type.open(clock)) {
        if (store instanceof SqliteOrderStore sqlite) {
          file = sqlite.file();
        }
        results.put(type, new IncidentReplay(store, clock).replayAll());
      } catch (Exception | LinkageError e) {
        problems.add(type.label() + ": " + e);
      } finally {
        if (file != null) {
          StoreType.deleteFresh(file);
        }
      }
    }
    printTable(out, results);
    problems.forEach(p -> out.println("ERROR " + p));
    long landed = results.values().stream().flatMap(List::stream).filter(o -> !o.held()).count();
    if (landed > 0) {
      out.println(
          landed + " scenario(s) let a stale write land or lost the order: see LANDED above.");
      return 1;
    }
    if (!problems.isEmpty()) {
      return 2;
    }
    out.println("Every stale write was fenced off on " + results.size() + " store(s).");
    return 0;
  }

  private static void printTable(
      PrintStream out, Map<StoreType, List<IncidentReplay.Outcome>> results) {
    if (results.isEmpty()) {
      return;
    }
    List<String> header = new ArrayList<>();
    header.add("scenario");
    results.keySet().forEach(t -> header.add(t.label()));
    List<List<String>> rows = new ArrayList<>();
    List<IncidentReplay.Outcome> first = results.values().iterator().next();
    for (int i = 0; i < first.size(); i++) {
      List<String> row = new ArrayList<>();
      row.add(first.get(i).scenario());
      for (List<IncidentReplay.Outcome> outcomes : results.values()) {
        row.add(outcomes.get(i).held() ? "held" : "LANDED");
      }
      rows.add(row);
    }
    int[] widths = new int[header.size()];
    for (int c = 0; c < widths.length; c++) {
      widths[c] = header.get(c).length();
      for (List<String> row : rows) {
        widths[c] = Math.max(widths[c], row.get(c).length());
      }
    }
    out.println();
    out.println(line(header, widths));
    out.println(rule(widths));
    rows.forEach(row -> out.println(line(row, widths)));
    out.println();
    for (Map.Entry<StoreType, List<IncidentReplay.Outcome>> e : results.entrySet()) {
      out.println(e.getKey().label() + ":");
      for (IncidentReplay.Outcome o : e.getValue()) {
        out.println(
            "  " + (o.held() ? "held  " : "LANDED") + "  " + o.scenario() + ": " + o.detail());
      }
    }
    out.println();
  }

  private static String line(List<String> cells, int[] widths) {
    StringBuilder s = new StringBuilder("|");
    for (int c = 0; c < widths.length; c++) {
      s.append(' ').append(String.format("%-" + widths[c] + "s", cells.get(c))).append(" |");
    }
    return s.toString();
  }

  private static String rule(int[] widths) {
    StringBuilder s = new StringBuilder("|");
    for (int width : widths) {
      s.append('-').append("-".repeat(width)).append("-|");
    }
    return s.toString();
  }
}
