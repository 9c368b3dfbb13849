package org.fencekit.tck;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.fencekit.history.Answer;
import org.fencekit.history.Call;
import org.fencekit.history.History;
import org.fencekit.history.LinearizabilityCheck;
import org.fencekit.history.Request;
import org.fencekit.store.ClaimId;
import org.fencekit.store.Item;
import org.fencekit.store.OrderSnapshot;
import org.fencekit.store.OrderStore;

/**
 * Invariant 5 of the contract: any concurrent history is equivalent to a sequential history of the
 * reference model, {@link org.fencekit.store.spi.OrderStateMachine}.
 *
 * <p>How a history is made: {@value #THREADS} threads make random calls (claim, complete, fail,
 * extend, get, orphans) on {@value #ORDERS} orders in {@value #ROUNDS} rounds of {@value
 * #CALLS_PER_ROUND} calls each. Within a round the threads run at once and the clock stands still;
 * between rounds it moves forward by a random step, so every call of a round saw the same instant.
 * Every call is recorded in a {@link History}, with its invocation and response on one sequence.
 * After the last round, get and orphans of every order are recorded too.
 *
 * <p>How it is checked: per order, by {@link LinearizabilityCheck}, for a sequential order of the
 * calls that respects real time and whose replay through the state machine answers every call
 * exactly as the store did.
 *
 * @param stores the instances threads call through, round robin (one, or a store and its peer)
 * @param clock the clock every instance reads
 * @param seed the seed of every random choice
 * @param histories how many histories to make and check
 */
record Linearizability(List<OrderStore> stores, TestClock clock, long seed, int histories) {

  static final int THREADS = 4;
  static final int ORDERS = 3;
  static final int ROUNDS = 6;
  static final int CALLS_PER_ROUND = 3;

  private static final List<Duration> LEASES =
      List.of(Duration.ofMillis(1000), Duration.ofMillis(2500));
  private static final List<Duration> EXTENSIONS =
      List.of(Duration.ofMillis(500), Duration.ofMillis(3000));
  private static final List<Duration> STEPS =
      List.of(
          Duration.ZERO,
          Duration.ofMillis(1),
          Duration.ofNanos(400_000),
          Duration.ofMillis(500),
          Duration.ofMillis(999),
          Duration.ofMillis(1000),
          Duration.ofMillis(2500),
          Duration.ofMillis(3000));
  private static final List<Item> ITEMS = List.of(new Item("p-1", "code-1"), new Item("p-2", null));
  private static final List<String> ERRORS = List.of("timeout", "declined");

  /** Makes and checks every history; throws AssertionError with seed and history on failure. */
  void runAndCheck() {
    for (int history = 0; history < histories; history++) {
      runOne(history);
    }
  }

  private void runOne(int number) {
    History history = new History(clock);
    List<String> sids = new ArrayList<>();
    Map<String, List<ClaimId>> claimIds = new ConcurrentHashMap<>();
    for (int i = 0; i < ORDERS; i++) {
      String sid = TckFixture.sid("linear-" + number + "-" + i);
      sids.add(sid);
      claimIds.put(sid, new CopyOnWriteArrayList<>());
    }
    SplittableRandom steps = new SplittableRandom(mix(seed, number, -1, -1));
    for (int round = 0; round < ROUNDS; round++) {
      int r = round;
      Race.run(
          THREADS,
          thread -> {
            SplittableRandom random = new SplittableRandom(mix(seed, number, r, thread));
            OrderStore store = stores.get(thread % stores.size());
            for (int c = 0; c < CALLS_PER_ROUND; c++) {
              String sid = sids.get(random.nextInt(sids.size()));
              Call call =
                  history.call("thread " + thread, choose(random, sid, claimIds.get(sid)), store);
              if (call.answer() == Answer.CLAIMED) {
                claimIds.get(sid).add(call.claimId());
              }
            }
            return null;
          });
      clock.advance(STEPS.get(steps.nextInt(STEPS.size())));
    }
    for (String sid : sids) {
      history.call("final", Request.get(sid), stores.get(0));
      history.call("final", Request.orphans(sid), stores.get(stores.size() - 1));
    }
    String rerun = "seed " + seed + " (rerun with -Dfencekit.tck.seed=" + seed;
    String replay =
        rerun
            + " to make the same random choices; the thread interleaving is the scheduler's),"
            + " history "
            + number;
    // whether the stores count failures, so the model's failure fields are compared too
    boolean countsFailures = stores.stream().allMatch(TckFixture::countsFailures);
    Map<String, List<Call>> byOrder = history.byOrder();
    for (String sid : sids) {
      LinearizabilityCheck.check(byOrder.get(sid), countsFailures, replay);
    }
  }

  private static long mix(long seed, int history, int round, int thread) {
    long h = seed;
    for (long part : new long[] {history, round, thread}) {
      h = (h ^ part) * 0x9E3779B97F4A7C15L;
      h ^= h >>> 31;
    }
    return h;
  }

  private static Request choose(SplittableRandom random, String sid, List<ClaimId> known) {
    int dice = random.nextInt(100);
    if (dice < 30 || (known.isEmpty() && dice < 70)) {
      int quantity = 1 + random.nextInt(2);
      OrderSnapshot snapshot =
          new OrderSnapshot(sid, "esim", quantity, null, 100L * quantity, "usd");
      return Request.claim(snapshot, LEASES.get(random.nextInt(LEASES.size())));
    }
    if (dice < 75) {
      ClaimId claimId = claimId(random, known);
      if (dice < 50) {
        return Request.complete(sid, claimId, ITEMS.get(random.nextInt(ITEMS.size())));
      }
      if (dice < 65) {
        return Request.fail(sid, claimId, ERRORS.get(random.nextInt(ERRORS.size())));
      }
      return Request.extend(sid, claimId, EXTENSIONS.get(random.nextInt(EXTENSIONS.size())));
    }
    return dice < 90 ? Request.get(sid) : Request.orphans(sid);
  }

  private static ClaimId claimId(SplittableRandom random, List<ClaimId> known) {
    int dice = random.nextInt(10);
    if (known.isEmpty() || dice == 0) {
      return new ClaimId(1 + random.nextInt(3), ClaimId.newNonce(random));
    }
    return dice < 6 ? known.get(known.size() - 1) : known.get(random.nextInt(known.size()));
  }
}
