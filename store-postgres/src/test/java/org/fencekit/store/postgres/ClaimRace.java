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
import java.util.concurrent.Callable;
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
 * Every result becomes one line (see {@link #run}), which the test reads back from both processes
 * and checks as a whole. Run as a program, this is the forked JVM: it builds its stores, prints
 * {@code READY}, waits for {@code GO} on its standard input, races, prints its lines and {@code
 * DONE}.
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

  /**
   * Runs one racer and returns its lines, in the order it did things:
   *
   * <pre>
   * CLAIM  racer sid fence nonce claimedAtMs leaseExpiresAtMs
   * BUSY   racer sid result
   * EXTEND racer sid fence result recordFence recordNonce|-
   * STALE  racer sid fence result currentFence
   * </pre>
   */
  static List<String> run(
      String racer,
      OrderStore store,
      TestClock clock,
      List<String> ids,
      int rounds,
      boolean reverse) {
    List<String> order = new ArrayList<>(ids);
    if (reverse) {
      Collections.reverse(order);
    }
    Map<String, ClaimId> held = new HashMap<>();
    List<String> lines = new ArrayList<>();
    for (int round = 0; round < rounds; round++) {
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
                  racer,
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
                  racer,
                  sid,
                  Long.toString(claimId.fence()),
                  extended.getClass().getSimpleName(),
                  Long.toString(extended.record().fence()),
                  now == null ? "-" : now.nonce()));
        } else {
          lines.add(String.join(" ", "BUSY", racer, sid, result.getClass().getSimpleName()));
        }
        if (old != null) {
          WriteResult stale = store.fail(sid, old, "stale attempt of " + racer);
          lines.add(
              String.join(
                  " ",
                  "STALE",
                  racer,
                  sid,
                  Long.toString(old.fence()),
                  stale.getClass().getSimpleName(),
                  Long.toString(stale.record().fence())));
        }
      }
    }
    return lines;
  }

  /**
   * Runs {@code count} racers on threads released together, racer {@code i} named {@code prefix +
   * i} and going over the orders backwards when {@code i} is odd.
   */
  static List<String> runAll(
      String prefix,
      List<PostgresOrderStore> stores,
      List<TestClock> clocks,
      List<String> ids,
      int rounds)
      throws Exception {
    int count = stores.size();
    ExecutorService pool = Executors.newFixedThreadPool(count);
    try {
      CyclicBarrier start = new CyclicBarrier(count);
      List<Future<List<String>>> futures = new ArrayList<>();
      for (int i = 0; i < count; i++) {
        int index = i;
        Callable<List<String>> racer =
            () -> {
              start.await(60, TimeUnit.SECONDS);
              return run(
                  prefix + index,
                  stores.get(index),
                  clocks.get(index),
                  ids,
                  rounds,
                  index % 2 == 1);
            };
        futures.add(pool.submit(racer));
      }
      List<String> lines = new ArrayList<>();
      for (Future<List<String>> future : futures) {
        lines.addAll(future.get(120, TimeUnit.SECONDS));
      }
      return lines;
    } finally {
      pool.shutdownNow();
    }
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
      if (!"GO".equals(in.readLine())) {
        System.exit(2);
      }
      for (String line : runAll("child-", stores, clocks, ids, rounds)) {
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
