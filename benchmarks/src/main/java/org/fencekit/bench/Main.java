package org.fencekit.bench;

import java.io.PrintStream;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.fencekit.store.OrderStore;

/**
 * The main job: replays the incident and the seed's other scenarios against every available
 * store, prints what each store did as a table, and exits with status 1 if any store let a
 * stale write land (2 if a store could not be opened or failed).
 *
 * <p>Run it with {@code java -jar benchmarks/target/fencekit-benchmarks.jar} after
 * {@code ./mvnw -q package -DskipTests}. Set {@code FENCEKIT_POSTGRES_URL},
 * {@code FENCEKIT_REDIS_URL} and {@code FENCEKIT_REDIS_CLUSTER_NODES} to include the servers.
 */
public final class Main {

  private Main() {}

  /** Runs the replay; see the class javadoc for the exit status. */
  public static void main(String[] args) {
    System.exit(run(System.out));
  }

  static int run(PrintStream out) {
    out.println("fencekit: replaying \"A lease is not a fence\" against every available store");
    Map<StoreType, List<IncidentReplay.Outcome>> results = new LinkedHashMap<>();
    List<String> problems = new ArrayList<>();
    for (StoreType type : StoreType.values()) {
      if (!type.available()) {
        out.println("  " + type.absence());
        continue;
      }
      ManualClock clock = new ManualClock(Instant.parse("2026-09-14T12:00:00Z"));
      try (OrderStore store = type.open(clock)) {
        results.put(type, new IncidentReplay(store, clock).replayAll());
      } catch (Exception | LinkageError e) {
        problems.add(type.label() + ": " + e);
      }
    }
    printTable(out, results);
    problems.forEach(p -> out.println("ERROR " + p));
    long landed = results.values().stream().flatMap(List::stream).filter(o -> !o.held()).count();
    if (landed > 0) {
      out.println(landed + " scenario(s) let a stale write land or lost the order: see LANDED above.");
      return 1;
    }
    if (!problems.isEmpty()) {
      return 2;
    }
    out.println("Every stale write was fenced off on " + results.size() + " store(s).");
    return 0;
  }

  private static void printTable(PrintStream out, Map<StoreType, List<IncidentReplay.Outcome>> results) {
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
        out.println("  " + (o.held() ? "held  " : "LANDED") + "  " + o.scenario() + ": " + o.detail());
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
