package org.fencekit.store.sqlite;

import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.locks.LockSupport;
import org.fencekit.store.ClaimId;
import org.fencekit.store.ClaimResult;
import org.fencekit.store.Item;
import org.fencekit.store.OrderSnapshot;
import org.fencekit.store.OrderStore;
import org.fencekit.store.WriteResult;
import org.fencekit.tck.TestClock;

/**
 * A {@link SqliteOrderStore} in a second JVM, driven one line at a time over stdin and answering
 * one line per command on stdout, for the tests that need two processes on one file. Its clock is a
 * {@link TestClock} set by each command, since a clock cannot be shared across processes.
 *
 * <p>Usage: {@code StoreProcess <file>}; prints {@code ready} once the store is open. Commands
 * (times are epoch millis):
 *
 * <ul>
 *   <li>{@code claim <now> <sessionId> <leaseMillis>}: {@code claimed <token>}, {@code inflight
 *       <fence>} or {@code provisioned <fence>};
 *   <li>{@code complete <now> <sessionId> <token> <providerOrderId>} and {@code fail <now>
 *       <sessionId> <token> <error>}: {@code written <status> <fence>} or {@code superseded
 *       <status> <fence>};
 *   <li>{@code race <startAt> <start> <leaseMillis> <rounds> <orders> <prefix> <seed>}: waits until
 *       the wall clock reads {@code startAt}, so both processes begin together, then answers {@link
 *       #race}'s entries, separated by commas;
 *   <li>{@code quit}.
 * </ul>
 *
 * A command that throws answers {@code error <exception> <message>}.
 */
public final class StoreProcess {

  private static final long WORK_BETWEEN_CLAIMS_NANOS = 2_000_000;

  private StoreProcess() {}

  /** Runs the store until stdin ends or {@code quit}. */
  public static void main(String[] args) throws Exception {
    PrintStream out =
        new PrintStream(new FileOutputStream(FileDescriptor.out), true, StandardCharsets.UTF_8);
    BufferedReader in =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    TestClock clock = new TestClock();
    try (SqliteOrderStore store =
        SqliteOrderStore.builder(Path.of(args[0]))
            .clock(clock)
            .busyTimeout(Duration.ofSeconds(60))
            .build()) {
      out.println("ready");
      for (String line = in.readLine();
          line != null && !line.equals("quit");
          line = in.readLine()) {
        try {
          out.println(run(store, clock, line.split(" ")));
        } catch (RuntimeException e) {
          out.println(
              "error "
                  + e.getClass().getSimpleName()
                  + " "
                  + String.valueOf(e.getMessage()).replace('\n', ' '));
        }
      }
    }
  }

  private static String run(OrderStore store, TestClock clock, String[] w) {
    switch (w[0]) {
      case "claim":
        clock.set(Instant.ofEpochMilli(Long.parseLong(w[1])));
        return describe(store.claim(snapshot(w[2]), Duration.ofMillis(Long.parseLong(w[3]))));
      case "complete":
        clock.set(Instant.ofEpochMilli(Long.parseLong(w[1])));
        return describe(store.complete(w[2], ClaimId.parse(w[3]), new Item(w[4], null)));
      case "fail":
        clock.set(Instant.ofEpochMilli(Long.parseLong(w[1])));
        return describe(store.fail(w[2], ClaimId.parse(w[3]), w[4]));
      case "race":
        awaitWallClock(Long.parseLong(w[1]));
        return String.join(
            ",",
            race(
                store,
                clock,
                Long.parseLong(w[2]),
                Long.parseLong(w[3]),
                Integer.parseInt(w[4]),
                Integer.parseInt(w[5]),
                w[6],
                Long.parseLong(w[7])));
      default:
        throw new IllegalArgumentException("unknown command " + w[0]);
    }
  }

  /**
   * Sleeps until the wall clock reads {@code epochMillis}: a start line for two processes, never a
   * wait for a lease (leases run on the test clock).
   */
  static void awaitWallClock(long epochMillis) {
    try {
      long wait = epochMillis - System.currentTimeMillis();
      if (wait > 0) {
        Thread.sleep(wait);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted before the race started", e);
    }
  }

  /** The snapshot both processes claim {@code sessionId} with. */
  static OrderSnapshot snapshot(String sessionId) {
    return new OrderSnapshot(sessionId, "esim-eu-5gb", 1, "ana@example.com", 1299, "eur");
  }

  /**
   * Claims orders {@code <prefix>0 .. <prefix><orders - 1>} once per round, in an order shuffled by
   * {@code seed} (each process its own, so which process gets to an order first varies), round
   * {@code r} at time {@code start + r * lease}: each round's claims find the previous round's
   * leases just expired. Returns one entry per claim, in call order: {@code
   * <round>:<sessionId>:<kind>:<fence>} with kind {@code claimed}, {@code inflight} or {@code
   * provisioned}.
   */
  static List<String> race(
      OrderStore store,
      TestClock clock,
      long start,
      long lease,
      int rounds,
      int orders,
      String prefix,
      long seed) {
    List<Integer> sequence = new ArrayList<>();
    for (int i = 0; i < orders; i++) {
      sequence.add(i);
    }
    Random random = new Random(seed);
    List<String> entries = new ArrayList<>(rounds * orders);
    for (int round = 0; round < rounds; round++) {
      clock.set(Instant.ofEpochMilli(start + round * lease));
      Collections.shuffle(sequence, random);
      for (int i : sequence) {
        String sessionId = prefix + i;
        ClaimResult result = store.claim(snapshot(sessionId), Duration.ofMillis(lease));
        String kind =
            result instanceof ClaimResult.Claimed
                ? "claimed"
                : result instanceof ClaimResult.InFlight ? "inflight" : "provisioned";
        entries.add(round + ":" + sessionId + ":" + kind + ":" + result.record().fence());
        // A handler does work between two deliveries. Claims back to back would leave the
        // file's lock free only for microseconds at a time, and the other process, polling in
        // SQLite's busy handler with growing sleeps, would rarely get in.
        LockSupport.parkNanos(WORK_BETWEEN_CLAIMS_NANOS);
      }
    }
    return entries;
  }

  private static String describe(ClaimResult result) {
    if (result instanceof ClaimResult.Claimed) {
      return "claimed " + ((ClaimResult.Claimed) result).claimId();
    }
    if (result instanceof ClaimResult.InFlight) {
      return "inflight " + ((ClaimResult.InFlight) result).record().fence();
    }
    return "provisioned " + ((ClaimResult.Provisioned) result).record().fence();
  }

  private static String describe(WriteResult result) {
    if (result instanceof WriteResult.Written) {
      WriteResult.Written written = (WriteResult.Written) result;
      return "written " + written.record().status() + " " + written.record().fence();
    }
    WriteResult.Superseded superseded = (WriteResult.Superseded) result;
    return "superseded " + superseded.current().status() + " " + superseded.current().fence();
  }
}
