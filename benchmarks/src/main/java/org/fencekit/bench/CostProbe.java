package org.fencekit.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Formatter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.fencekit.store.OrderStore;

/**
 * What one claim + complete costs, counted from the server's side and the client's: the subjects (a
 * store, its raw baseline, its floor, a peer's lock + unlock) run on one thread, each on fresh
 * orders, in turns interleaved run by run (run r starts with subject r mod n, so that a drift of
 * the machine weighs on each alike), and a {@link Meter} reads the server's counters before and
 * after each turn (and, for the counters a server publishes late, after the warm-up and at the end:
 * {@link Meter#settled}). The probe itself reads the calling thread's CPU time and allocated bytes
 * around the operations, and the wall time they took. Each figure is divided by the operations of
 * the turn; the report gives, per figure and subject, the median over the runs and their range. The
 * counts (statements, WAL bytes, HOT updates) are exact and the same in every run; the times vary
 * with the machine, so they are to be read beside the floor's and the peer's of the same run.
 */
final class CostProbe {

  /** The store built over the peer's kind of DataSource ({@link Peer#dataSource}). */
  static final String FENCEKIT_DATASOURCE = "fencekit (DataSource)";

  /** The store built from a URL, its own pool. */
  static final String FENCEKIT_URL = "fencekit (URL)";

  /** The store's own statements through the bare driver ({@link RawJdbc}). */
  static final String RAW = "raw";

  /** The minimal fenced compare-and-set on the same data ({@link SqlFloor}). */
  static final String FLOOR = "floor";

  /**
   * The floor that also keeps the held claims by lease end where an exact stuck-order listing finds
   * them, as the store must: a partial index on PostgreSQL, a sorted set on Redis.
   */
  static final String INDEXED_FLOOR = "floor + index";

  /** ShedLock's JDBC provider: lock + unlock. */
  static final String SHEDLOCK = "ShedLock JDBC";

  /** The JVM's CPU time per operation, every thread (GC, JIT, a client's I/O threads), µs. */
  static final String PROCESS_CPU = "client JVM CPU (µs)";

  /** The client's thread CPU time per operation, µs. */
  static final String CLIENT_CPU = "client CPU (µs)";

  /** The client thread's allocated bytes per operation. */
  static final String CLIENT_ALLOC = "client allocated (B)";

  /** A meter's server CPU figure, which the report adds to the client's. */
  static final String SERVER_CPU = "server CPU (µs)";

  /**
   * The wall time per operation on the calling thread, µs: its CPU, its waits for the server, the
   * disk and the machine's other work. At one thread, its inverse is the throughput.
   */
  static final String ELAPSED = "elapsed (µs)";

  /** Server CPU plus client CPU per operation. */
  static final String SUM_CPU = "server + client CPU (µs)";

  /**
   * The bytes the calling thread handed to {@code write} and its kin per operation ({@code wchar}
   * of {@code /proc/thread-self/io}): what a JDBC driver or Jedis sent the server, or what SQLite
   * wrote to its files. Exact. A client that sends from threads of its own (Redisson's and jetcd's
   * Netty) shows little or none of its traffic here.
   */
  static final String WRITTEN = "written (B)";

  /**
   * The calling thread's write system calls per operation ({@code syscw}): for a JDBC driver or
   * Jedis one per message flushed to the server, so its round trips where each waits for the
   * answer; for SQLite, its WAL and checkpoint writes. Exact; see {@link #WRITTEN} for clients that
   * send from threads of their own.
   */
  static final String WRITE_CALLS = "write calls";

  /** The first runs' turns, never reported: the JIT, the pools and the server's caches warm up. */
  static final int WARM_UP_RUNS = 1;

  private static final Path THREAD_IO = Path.of("/proc/thread-self/io");

  private static final com.sun.management.ThreadMXBean THREADS =
      (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

  private static final com.sun.management.OperatingSystemMXBean PROCESS =
      (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

  private CostProbe() {}

  /**
   * One thing measured: {@code operation} does one unit of work on a fresh id (a claim + complete,
   * or a lock + unlock), {@code table} is where it writes (for per-table counters; may be null),
   * and {@code closer} releases what it opened.
   */
  record Subject(String name, String table, Consumer<String> operation, AutoCloseable closer)
      implements AutoCloseable {

    @Override
    public void close() {
      try {
        closer.close();
      } catch (Exception e) {
        throw new IllegalStateException("could not close " + name + ": " + e.getMessage(), e);
      }
    }
  }

  /** {@code store}'s claim + complete of fresh orders, as the subject {@code name}. */
  static Subject store(String name, String table, OrderStore store) {
    return new Subject(name, table, id -> Orders.claimComplete(store, id), store);
  }

  /** The raw baseline's claim + complete, on one session of {@code driver}. */
  static Subject raw(String table, RawDriver driver) {
    return raw(RAW, table, driver);
  }

  /**
   * {@link #raw(String, RawDriver)} as the subject {@code name}, where a probe has several raw
   * baselines; closing it closes the session and the driver.
   */
  static Subject raw(String name, String table, RawDriver driver) {
    RawDriver.Session session = driver.session();
    return new Subject(
        name,
        table,
        id -> session.claimComplete(id, System.currentTimeMillis()),
        () -> {
          try (driver) {
            session.close();
          }
        });
  }

  /** The floor's claim + complete, as the subject {@code name}. */
  static Subject floor(String name, String table, SqlFloor floor) {
    return new Subject(name, table, floor::claimComplete, floor);
  }

  /** A lock library's lock + unlock, on the lock of thread 0, as the subject {@code name}. */
  static Subject peer(String name, String table, PeerLock peer) {
    PeerLock.Session lock = peer.session(0);
    return new Subject(name, table, id -> lock.lockUnlock(), peer);
  }

  /** Reads a server's counters around each subject's turn, and those it publishes late. */
  interface Meter {

    /** Reads the counters before {@code subject}'s turn. */
    Turn begin(Subject subject);

    /**
     * The counters the server publishes some time after the statements (PostgreSQL's statistics,
     * which a backend flushes when it goes idle), per subject name, totals since the server
     * started, once they have settled: each subject has run {@code operationsEach} operations so
     * far. The probe reads them after the warm-up and after the last run, and reports their change
     * divided by the operations between: one figure for all the runs. None by default.
     */
    default Map<String, Map<String, Double>> settled(List<Subject> subjects, long operationsEach) {
      return Map.of();
    }

    /**
     * A turn whose figures are the change of {@code counters} across the operations: read now, and
     * again when they are done.
     */
    static Turn difference(Supplier<Map<String, Double>> counters) {
      Map<String, Double> before = counters.get();
      return new Turn() {
        private Map<String, Double> after;

        @Override
        public void operationsDone() {
          after = counters.get();
        }

        @Override
        public Map<String, Double> totals() {
          Map<String, Double> totals = new LinkedHashMap<>();
          before.forEach((figure, value) -> totals.put(figure, after.get(figure) - value));
          return totals;
        }
      };
    }

    /** One turn's readings. */
    interface Turn {

      /** Called right after the turn's operations, before anything else runs. */
      void operationsDone();

      /** The turn's figures, totals over its operations (the probe divides them). */
      Map<String, Double> totals();
    }
  }

  /** Per figure, per subject, the per-operation values of each measured run. */
  record Result(
      String title,
      int operations,
      List<String> subjects,
      Map<String, Map<String, double[]>> values) {

    /** The median over the runs of {@code figure} for {@code subject}. */
    double median(String figure, String subject) {
      double[] sorted = values.get(figure).get(subject).clone();
      Arrays.sort(sorted);
      return Ratio.median(sorted);
    }

    /** The figures, in report order. */
    List<String> figures() {
      return List.copyOf(values.keySet());
    }

    /**
     * A Markdown table: a row per figure, a column per subject, each cell the median over the runs
     * and, when the runs differ, their range.
     */
    String format() {
      Formatter out = new Formatter(Locale.ROOT);
      int runs = values.values().iterator().next().values().iterator().next().length;
      out.format(
          "%s: per operation, %,d fresh orders a turn, median [min-max] of %d runs%n%n",
          title, operations, runs);
      out.format("| per op |");
      subjects.forEach(s -> out.format(" %s |", s));
      out.format("%n|:--|");
      subjects.forEach(s -> out.format("--:|"));
      out.format("%n");
      for (var figure : values.entrySet()) {
        out.format("| %s |", figure.getKey());
        for (String subject : subjects) {
          double[] sorted = figure.getValue().get(subject).clone();
          Arrays.sort(sorted);
          double low = sorted[0];
          double high = sorted[sorted.length - 1];
          out.format(" %s", number(Ratio.median(sorted)));
          if (number(low).equals(number(high))) {
            out.format(" |");
          } else {
            out.format(" [%s-%s] |", number(low), number(high));
          }
        }
        out.format("%n");
      }
      return out.toString();
    }

    private static String number(double value) {
      if (Double.isNaN(value)) {
        return "n/a";
      }
      return Math.abs(value) >= 100
          ? String.format(Locale.ROOT, "%,.0f", value)
          : String.format(Locale.ROOT, "%.2f", value);
    }
  }

  /**
   * Runs {@code runs} measured runs (after {@link #WARM_UP_RUNS}), each a turn of {@code
   * operations} fresh ids per subject, interleaved; the subjects stay open throughout.
   *
   * @throws IllegalArgumentException if operations or runs is below 1, or there is no subject
   */
  static Result measure(
      String title, List<Subject> subjects, Meter meter, int operations, int runs) {
    if (operations < 1 || runs < 1 || subjects.isEmpty()) {
      throw new IllegalArgumentException(
          "operations and runs must be at least 1 and there must be a subject, got operations="
              + operations
              + ", runs="
              + runs
              + ", subjects="
              + subjects.size());
    }
    String prefix = Orders.newRunPrefix();
    Map<String, Map<String, double[]>> values = new LinkedHashMap<>();
    int n = subjects.size();
    Map<String, Map<String, Double>> settled = Map.of();
    for (int run = 0; run < WARM_UP_RUNS + runs; run++) {
      if (run == WARM_UP_RUNS) {
        settled = meter.settled(subjects, (long) operations * WARM_UP_RUNS);
      }
      for (int k = 0; k < n; k++) {
        Subject subject = subjects.get((run + k) % n);
        String ids = prefix + "r" + run + "_" + k + "_";
        Map<String, Double> turn = turn(subject, meter, ids, operations);
        if (run >= WARM_UP_RUNS) {
          for (var figure : turn.entrySet()) {
            values.computeIfAbsent(figure.getKey(), f -> new LinkedHashMap<>())
                    .computeIfAbsent(subject.name(), s -> new double[runs])[run - WARM_UP_RUNS] =
                figure.getValue() / operations;
          }
        }
      }
    }
    Map<String, Map<String, Double>> end =
        meter.settled(subjects, (long) operations * (WARM_UP_RUNS + runs));
    for (Subject subject : subjects) {
      for (var figure : end.getOrDefault(subject.name(), Map.of()).entrySet()) {
        double[] each = new double[runs];
        Arrays.fill(
            each,
            (figure.getValue() - settled.get(subject.name()).get(figure.getKey()))
                / ((double) operations * runs));
        values
            .computeIfAbsent(figure.getKey(), f -> new LinkedHashMap<>())
            .put(subject.name(), each);
      }
    }
    return new Result(title, operations, subjects.stream().map(Subject::name).toList(), values);
  }

  /** One subject's turn: the meter's totals, the client's, and the CPU sum. */
  private static Map<String, Double> turn(
      Subject subject, Meter meter, String ids, int operations) {
    Meter.Turn reading = meter.begin(subject);
    Map<String, Double> io = threadIo();
    long thread = Thread.currentThread().getId();
    long cpu = THREADS.getCurrentThreadCpuTime();
    long allocated = THREADS.getThreadAllocatedBytes(thread);
    long process = PROCESS.getProcessCpuTime();
    long start = System.nanoTime();
    for (int i = 0; i < operations; i++) {
      subject.operation().accept(ids + i);
    }
    long elapsed = System.nanoTime() - start;
    long cpuUsed = THREADS.getCurrentThreadCpuTime() - cpu;
    long allocatedNow = THREADS.getThreadAllocatedBytes(thread) - allocated;
    long processUsed = PROCESS.getProcessCpuTime() - process;
    Map<String, Double> ioAfter = threadIo(); // before the meter's own reads on this thread
    reading.operationsDone();
    Map<String, Double> totals = new LinkedHashMap<>(reading.totals());
    io.forEach((figure, before) -> totals.put(figure, ioAfter.get(figure) - before));
    totals.put(CLIENT_CPU, cpuUsed / 1_000.0);
    totals.put(CLIENT_ALLOC, (double) allocatedNow);
    totals.put(PROCESS_CPU, processUsed / 1_000.0);
    totals.put(ELAPSED, elapsed / 1_000.0);
    Double server = totals.get(SERVER_CPU);
    if (server != null) {
      totals.put(SUM_CPU, server + cpuUsed / 1_000.0);
    }
    return totals;
  }

  /**
   * The calling thread's write counters, {@link #WRITTEN} ({@code wchar}) and {@link #WRITE_CALLS}
   * ({@code syscw}) of {@code /proc/thread-self/io}; NaN (reported as n/a) where the system has no
   * such file (not Linux, or before 3.17), as the other figures a machine cannot give.
   */
  static Map<String, Double> threadIo() {
    return threadIo(THREAD_IO);
  }

  /** {@link #threadIo()} read from {@code file}. */
  static Map<String, Double> threadIo(Path file) {
    Map<String, Double> values = new LinkedHashMap<>();
    values.put(WRITTEN, Double.NaN);
    values.put(WRITE_CALLS, Double.NaN);
    List<String> lines;
    try {
      lines = Files.readAllLines(file);
    } catch (IOException e) {
      return values;
    }
    for (String line : lines) {
      String[] pair = line.split(":\\s*");
      if (pair[0].equals("wchar")) {
        values.put(WRITTEN, Double.parseDouble(pair[1]));
      } else if (pair[0].equals("syscw")) {
        values.put(WRITE_CALLS, Double.parseDouble(pair[1]));
      }
    }
    return values;
  }

  /**
   * The CPU time process {@code pid} of this machine has used (all its threads, those ended
   * included), µs, from {@code /proc/<pid>/stat}: utime + stime, in clock ticks of 10 ms (Linux's
   * USER_HZ); NaN when there is no such process here (a server on another machine).
   */
  static double processCpuMicros(long pid) {
    String stat;
    try {
      stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
    } catch (IOException e) {
      return Double.NaN;
    }
    // the command name, in parentheses, may hold spaces: count the fields after its ')'
    String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    long ticks = Long.parseLong(fields[11]) + Long.parseLong(fields[12]); // utime, stime
    return ticks * 10_000.0;
  }

  /** The sum of {@link #processCpuMicros} over {@code pids}; NaN if any is not here. */
  static double processCpuMicros(List<Long> pids) {
    double sum = 0;
    for (long pid : pids) {
      sum += processCpuMicros(pid);
    }
    return sum;
  }

  /** Subjects opened so far; closed in reverse if a later one fails to open. */
  static final class Opened implements AutoCloseable {
    private final List<Subject> subjects = new ArrayList<>();

    Subject add(Subject subject) {
      subjects.add(subject);
      return subject;
    }

    List<Subject> list() {
      return List.copyOf(subjects);
    }

    @Override
    public void close() {
      RuntimeException first = null;
      for (int i = subjects.size() - 1; i >= 0; i--) {
        try {
          subjects.get(i).close();
        } catch (RuntimeException e) {
          if (first == null) {
            first = e;
          } else {
            first.addSuppressed(e);
          }
        }
      }
      if (first != null) {
        throw first;
      }
    }
  }
}
