package org.fencekit.bench;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;

/**
 * What a claim + complete costs the embedded stores, each beside its raw baseline ({@link
 * CostProbe}): the memory store, {@link RawMemory} (a {@code ConcurrentHashMap} compute) and its
 * floor {@link MemoryFloor} (a fenced compare-and-set with an exact index of held claims), the
 * SQLite store at synchronous FULL and NORMAL and their raw baselines ({@link RawJdbc#sqlite}: the
 * store's SQL through the bare driver), each SQLite subject on a fresh file of its own (deleted at
 * the end), one thread, all seven interleaved run by run. The work runs on the calling thread
 * (SQLite through JNI), so the client's figures are the whole cost. The thread's writes ({@link
 * CostProbe#WRITTEN}, {@link CostProbe#WRITE_CALLS}) are SQLite's: the WAL frames (a 24-byte header
 * and a page each, two write calls per frame) and the checkpoints' copies of pages into the
 * database file (one call per page; SQLite checkpoints at the commit that takes the WAL past 1,000
 * pages, on the committing thread). Exact; they vary slightly from run to run only with where the
 * turn falls between checkpoints and B-tree page splits. Per operation, beside them, from the
 * SQLite files, commits: the change counter of each file's WAL index ({@code iChange} of the {@code
 * -shm} file's header, which SQLite adds one to at each commit that writes frames, and keeps across
 * checkpoints), summed over the files (only the subject of the turn writes). Exact. At synchronous
 * FULL each commit syncs the WAL; at NORMAL none does (only checkpoints sync). The memory subjects
 * write nothing and commit nothing: their figures are 0.
 *
 * <pre>
 * java -cp benchmarks/target/fencekit-benchmarks.jar org.fencekit.bench.EmbeddedCost \
 *   --orders 2000 --runs 5
 * </pre>
 */
public final class EmbeddedCost {

  static final String COMMITS = "commits";

  /** The memory store's floor ({@link MemoryFloor}), after its raw baseline. */
  static final String MEMORY_FLOOR = "memory-floor";

  /** The stores, in table order, each followed by its raw baseline. */
  static final List<StoreType> STORES =
      List.of(StoreType.MEMORY, StoreType.SQLITE, StoreType.SQLITE_NORMAL);

  private EmbeddedCost() {}

  /** Runs the probe; {@code --help} lists the options. */
  public static void main(String[] args) {
    System.exit(
        CostCommand.runEmbedded(
            "java -cp benchmarks/target/fencekit-benchmarks.jar org.fencekit.bench.EmbeddedCost",
            "What a claim + complete costs the memory and SQLite stores beside their raw"
                + " baselines (and the memory store's floor), per operation: the client's CPU and"
                + " allocations, the bytes written, the commits.",
            EmbeddedCost::measure,
            args,
            System.out));
  }

  /**
   * Measures {@code runs} runs of {@code orders} fresh orders per subject: each store of {@link
   * #STORES} (named by its label) and its raw baseline (named by the baseline's label), the memory
   * store's floor after its baseline.
   */
  static CostProbe.Result measure(int orders, int runs) {
    Clock clock = Clock.systemUTC();
    Map<String, String> env = Map.of();
    Namespace namespace = Namespace.fresh(); // a file each: sqlite.db, raw-full.db, ...
    try (CostProbe.Opened opened = new CostProbe.Opened()) {
      for (StoreType store : STORES) {
        opened.add(CostProbe.store(store.label(), null, store.open(clock, namespace, env, 1)));
        RawBaseline raw = RawBaseline.of(store);
        opened.add(CostProbe.raw(raw.label(), null, raw.open(namespace, env)));
        if (store == StoreType.MEMORY) {
          MemoryFloor floor = new MemoryFloor();
          opened.add(new CostProbe.Subject(MEMORY_FLOOR, null, floor::claimComplete, () -> {}));
        }
      }
      return CostProbe.measure(
          "Embedded stores, one thread, claim + complete, each beside its raw baseline",
          opened.list(),
          subject -> CostProbe.Meter.difference(() -> counters(namespace.folder())),
          orders,
          runs);
    } finally {
      namespace.drop(null, env);
    }
  }

  /** The commits of the SQLite files in {@code folder}, as a meter's counters. */
  private static Map<String, Double> counters(Path folder) {
    return Map.of(COMMITS, (double) commits(folder));
  }

  /**
   * The commits of the SQLite files in {@code folder} so far: the sum of their WAL indexes' change
   * counters ({@code iChange}, a native-order u32 at byte 8 of the {@code -shm} file); 0 if there
   * is none.
   */
  static long commits(Path folder) {
    if (!Files.isDirectory(folder)) {
      return 0;
    }
    long sum = 0;
    try (DirectoryStream<Path> indexes = Files.newDirectoryStream(folder, "*-shm")) {
      for (Path index : indexes) {
        ByteBuffer header = ByteBuffer.allocate(12).order(ByteOrder.nativeOrder());
        try (FileChannel channel = FileChannel.open(index)) {
          channel.read(header, 0);
        }
        sum += Integer.toUnsignedLong(header.getInt(8));
      }
    } catch (IOException e) {
      throw new IllegalStateException(
          "cannot read the WAL indexes (-shm) in " + folder + " to count commits: " + e, e);
    }
    return sum;
  }
}
