package org.fencekit.store.postgres;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.fencekit.store.ClaimId;
import org.fencekit.store.ClaimResult;
import org.fencekit.store.OrderSnapshot;
import org.fencekit.store.OrderStore;
import org.fencekit.store.WriteResult;
import org.fencekit.tck.TestClock;
import org.fencekit.testsupport.TestPostgres;

/**
 * One side of the cross-process claim race: racers, each with a store of its own (its own pool, the
 * fast path on for even racers and off for odd ones) and a clock of its own, go over the same
 * orders for several rounds. In round {@code r} a racer's clock reads {@code START + r * 2 *
 * LEASE}, past every lease of the rounds before. On each order a racer:
 *
 * <ol>
 *   <li>claims it, and on Claimed extends the new claim at once;
 *   <li>if it holds a token from an earlier round for that order, fails the order with that token:
 *       that token is stale by then whatever the claim answered (Claimed: replaced by the racer's
 *       own; InFlight: a live lease can only be a newer claim's), so the fail must be Superseded
 *       and must never land.
 * </ol>
 *
 * The two processes go round by round together ({@link Gate}): neither starts a round before both
 * have finished the one before, so a process that starts late or runs slowly still races (a process
 * rounds ahead would find every order held by a lease of a later round). In each round a process's
 * racers go over the orders in one direction and the other process's the other way, swapping every
 * round, so each process wins orders at its end and in the next round starts by taking over what
 * the other won: ownership passes between the processes in each round after the first in which both
 * won something (the test checks that it passed at least once).
 *
 * <p>Every result becomes one line (see {@link Racer#round}), which the test reads back from both
 * processes and checks as a whole. Run as a program, this is the forked JVM: it builds its stores,
 * prints {@code READY}, then for each round waits for {@code GO}, races it and prints {@code
 * ROUND}; at the end its lines and {@code DONE}.
 */
final class ClaimRace {

  /** Every racer's lease. */
  static final Duration LEASE = Duration.ofMinutes(2);

  private ClaimRace() {}

  /** The session ids of a race. */
  static List<String> sessionIds(String runId, int orders) {
    List<String> ids = new ArrayList<>(orders);
    for (int i = 0; i < orders; i++) {
      ids.add("race-" + runId + "-" + i);
    }
    return ids;
  }

  /**
   * A store for racer {@code index}: a pool of its own; even racers decide on the single-statement
   * fast path, odd racers in locking transactions only, so the two ways race each other within and
   * across the processes.
   */
  static PostgresOrderStore store(String jdbcUrl, String schema, TestClock clock, int index) {
    return PostgresOrderStore.builder()
        .jdbcUrl(jdbcUrl)
        .schema(schema)
        .maximumPoolSize(1)
        .singleStatementFastPath(index % 2 == 0)
        .clock(clock)
        .build();
  }

  /** One racer: its store and clock, the tokens it got in earlier rounds, and its lines. */
  static final class Racer {
    private final String name;
    private final OrderStore store;
    private final TestClock clock;
    private final Map<String, ClaimId> held = new HashMap<>();
    final List<String> lines = new ArrayList<>();

    Racer(String name, OrderStore store, TestClock clock) {
      this.name = name;
      this.store = store;
      this.clock = clock;
    }

    /**
     * Races round {@code round} over {@code ids} (backwards if {@code backward}), adding a line per
     * result, in the order it did things:
     *
     * <pre>
     * CLAIM  racer sid fence nonce claimedAtMs leaseExpiresAtMs
     * BUSY   racer sid result
     * EXTEND racer sid fence result recordFence recordNonce|-
     * STALE  racer sid fence result currentFence
     * </pre>
     */
    void round(List<String> ids, int round, boolean backward) {
      List<String> order = new ArrayList<>(ids);
      if (backward) {
        Collections.reverse(order);
      }
      clock.set(TestClock.START.plus(LEASE.multipliedBy(2L * round)));
      for (String sid : order) {
        ClaimResult result =
            store.claim(new OrderSnapshot(sid, "esim", 1, null, 500, "usd"), LEASE);
        ClaimId old = held.get(sid);
        if (result instanceof ClaimResult.Claimed) {
          ClaimId claimId = ((ClaimResult.Claimed) result).claimId();
          held.put(sid, claimId);
          lines.add(
              String.join(
                  " ",
                  "CLAIM",
                  name,
                  sid,
                  Long.toString(claimId.fence()),
                  claimId.nonce(),
                  millis(result.record().claimedAt()),
                  millis(result.record().leaseExpiresAt())));
          WriteResult extended = store.extend(sid, claimId, LEASE);
          ClaimId now = extended.record().claimId();
          lines.add(
              String.join(
                  " ",
                  "EXTEND",
                  name,
                  sid,
                  Long.toString(claimId.fence()),
                  extended.getClass().getSimpleName(),
                  Long.toString(extended.record().fence()),
                  now == null ? "-" : now.nonce()));
        } else {
          lines.add(String.join(" ", "BUSY", name, sid, result.getClass().getSimpleName()));
        }
        if (old != null) {
          WriteResult stale = store.fail(sid, old, "stale attempt of " + name);
          lines.add(
              String.join(
                  " ",
                  "STALE",
                  name,
                  sid,
                  Long.toString(old.fence()),
                  stale.getClass().getSimpleName(),
                  Long.toString(stale.record().fence())));
        }
      }
    }
  }

  /** Where a process waits for the other before each round. */
  @FunctionalInterface
  interface Gate {
    /** Returns once the other process has finished round {@code round - 1} too. */
    void before(int round) throws Exception;
  }

  /**
   * Runs this process's racers, racer {@code i} named {@code prefix + i}, round by round: each
   * round starts once {@code gate} lets it and every racer has finished the round before, all
   * racers released together and going over the orders the same way: round 0 backwards if {@code
   * backwardFirst}, and each later round the other way from the one before. Returns every racer's
   * lines.
   */
  static List<String> runAll(
      String prefix,
      List<PostgresOrderStore> stores,
      List<TestClock> clocks,
      List<String> ids,
      int rounds,
      boolean backwardFirst,
      Gate gate)
      throws Exception {
    List<Racer> racers = new ArrayList<>();
    for (int i = 0; i < stores.size(); i++) {
      racers.add(new Racer(prefix + i, stores.get(i), clocks.get(i)));
    }
    ExecutorService pool = Executors.newFixedThreadPool(racers.size());
    try {
      for (int round = 0; round < rounds; round++) {
        gate.before(round);
        boolean backward = backwardFirst ^ (round % 2 == 1);
        int r = round;
        CyclicBarrier start = new CyclicBarrier(racers.size());
        List<Future<?>> futures = new ArrayList<>();
        for (Racer racer : racers) {
          futures.add(
              pool.submit(
                  () -> {
                    start.await(60, TimeUnit.SECONDS);
                    racer.round(ids, r, backward);
                    return null;
                  }));
        }
        for (Future<?> future : futures) {
          future.get(120, TimeUnit.SECONDS);
        }
      }
    } finally {
      pool.shutdownNow();
    }
    return racers.stream().flatMap(racer -> racer.lines.stream()).toList();
  }

  private static String millis(Instant instant) {
    return Long.toString(instant.toEpochMilli());
  }

  /**
   * The forked JVM: {@code schema runId orders rounds racers}; the server's URL comes from {@value
   * TestPostgres#URL_VARIABLE}.
   */
  public static void main(String[] args) throws Exception {
    String url = System.getenv(TestPostgres.URL_VARIABLE);
    String schema = args[0];
    List<String> ids = sessionIds(args[1], Integer.parseInt(args[2]));
    int rounds = Integer.parseInt(args[3]);
    int racers = Integer.parseInt(args[4]);
    List<PostgresOrderStore> stores = new ArrayList<>();
    List<TestClock> clocks = new ArrayList<>();
    try {
      for (int i = 0; i < racers; i++) {
        TestClock clock = new TestClock();
        clocks.add(clock);
        stores.add(store(url, schema, clock, i));
        stores.get(i).get(ids.get(0)); // open the pool before the start
      }
      System.out.println("READY");
      System.out.flush();
      BufferedReader in =
          new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
      Gate gate =
          round -> {
            if (round > 0) {
              System.out.println("ROUND");
              System.out.flush();
            }
            if (!"GO".equals(in.readLine())) {
              System.exit(2);
            }
          };
      for (String line : runAll("child-", stores, clocks, ids, rounds, true, gate)) {
        System.out.println(line);
      }
      System.out.println("DONE");
      System.out.flush();
    } finally {
      for (PostgresOrderStore store : stores) {
        store.close();
      }
    }
  }
}
