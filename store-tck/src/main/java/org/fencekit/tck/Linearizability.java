package org.fencekit.tck;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Collections;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.fencekit.store.ClaimId;
import org.fencekit.store.ClaimResult;
import org.fencekit.store.Item;
import org.fencekit.store.OrderRecord;
import org.fencekit.store.OrderSnapshot;
import org.fencekit.store.OrderStore;
import org.fencekit.store.Orphan;
import org.fencekit.store.UnknownOrderException;
import org.fencekit.store.WriteResult;
import org.fencekit.store.spi.ClaimRequest;
import org.fencekit.store.spi.OrderStateMachine;
import org.fencekit.store.spi.WriteRequest;

/**
 * Invariant 5 of the contract: any concurrent history is equivalent to a sequential history of the
 * reference model, {@link OrderStateMachine}.
 *
 * <p>How a history is made: {@value #THREADS} threads make random calls (claim, complete, fail,
 * extend, get, orphans) on {@value #ORDERS} orders in {@value #ROUNDS} rounds of {@value
 * #CALLS_PER_ROUND} calls each. Within a round the threads run at once and the clock stands still;
 * between rounds it moves forward by a random step, so every call of a round saw the same instant.
 * Each call records its invocation and response on one global sequence, and what it was told. After
 * the last round, get and orphans of every order are recorded too.
 *
 * <p>How it is checked, per order (linearizability is local, so orders are independent): a Wing and
 * Gong search, with Lowe's memo of (calls done, model state) pairs, for an order of the calls in
 * which no call comes before one that had responded before it was invoked, and whose replay through
 * the state machine answers every call exactly as the store did, records included. A granted
 * claim's nonce is random, so the model is given the nonce the store's Claimed answer carried;
 * every other field must match.
 */
final class Linearizability {

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

  /** The nonce the model is given for a claim the store did not grant. */
  private static final String NO_NONCE = "0".repeat(32);

  /** What the model answers a write on an order that does not exist. */
  private static final String UNKNOWN = "UnknownOrderException";

  private final List<OrderStore> stores;

  /** Whether the stores count failures, so the model's failure fields are compared too. */
  private final boolean countsFailures;

  private final TestClock clock;
  private final long seed;
  private final int histories;
  private final AtomicLong sequence = new AtomicLong();

  /**
   * @param stores the instances threads call through, round robin (one, or a store and its peer)
   * @param clock the clock every instance reads
   * @param seed the seed of every random choice
   * @param histories how many histories to make and check
   */
  Linearizability(List<OrderStore> stores, TestClock clock, long seed, int histories) {
    this.stores = stores;
    this.countsFailures = stores.stream().allMatch(TckFixture::countsFailures);
    this.clock = clock;
    this.seed = seed;
    this.histories = histories;
  }

  /** A call as made: what was asked, through which thread, at what time. */
  sealed interface Call {}

  /** claim(snapshot, lease). */
  record Claim(OrderSnapshot snapshot, Duration lease) implements Call {}

  /** complete(sessionId, token, item). */
  record Complete(ClaimId claimId, Item item) implements Call {}

  /** fail(sessionId, token, error). */
  record Fail(ClaimId claimId, String error) implements Call {}

  /** extend(sessionId, token, lease). */
  record Extend(ClaimId claimId, Duration lease) implements Call {}

  /** get(sessionId). */
  record Get() implements Call {}

  /** orphans(sessionId). */
  record Orphans() implements Call {}

  /**
   * One call in a history.
   *
   * @param thread the calling thread, -1 for the final reads
   * @param call what was asked
   * @param now the clock during the call
   * @param invoked the sequence number taken before the call
   * @param responded the sequence number taken after it returned
   * @param outcome what the store answered, or the exception it threw
   */
  record Op(int thread, Call call, Instant now, long invoked, long responded, Object outcome) {}

  /** The model: the order's record (or null) and its orphans. */
  record State(OrderRecord record, List<Orphan> orphans) {}

  private record Step(State next, Object expected) {}

  private record Key(BitSet done, State state) {}

  /** Makes and checks every history; throws AssertionError with seed and history on failure. */
  void runAndCheck() {
    for (int history = 0; history < histories; history++) {
      runOne(history);
    }
  }

  private void runOne(int history) {
    List<String> sids = new ArrayList<>();
    Map<String, List<ClaimId>> claimIds = new ConcurrentHashMap<>();
    Map<String, List<Op>> ops = new ConcurrentHashMap<>();
    for (int i = 0; i < ORDERS; i++) {
      String sid = OrderStoreTck.sid("linear-" + history + "-" + i);
      sids.add(sid);
      claimIds.put(sid, new CopyOnWriteArrayList<>());
      ops.put(sid, Collections.synchronizedList(new ArrayList<>()));
    }
    SplittableRandom steps = new SplittableRandom(mix(seed, history, -1, -1));
    for (int round = 0; round < ROUNDS; round++) {
      Instant now = clock.instant();
      int r = round;
      Race.run(
          THREADS,
          thread -> {
            SplittableRandom random = new SplittableRandom(mix(seed, history, r, thread));
            OrderStore store = stores.get(thread % stores.size());
            for (int c = 0; c < CALLS_PER_ROUND; c++) {
              String sid = sids.get(random.nextInt(sids.size()));
              Call call = choose(random, sid, claimIds.get(sid));
              Op op = perform(store, thread, sid, call, now);
              if (op.outcome() instanceof ClaimResult.Claimed) {
                claimIds.get(sid).add(((ClaimResult.Claimed) op.outcome()).claimId());
              }
              ops.get(sid).add(op);
            }
            return null;
          });
      clock.advance(STEPS.get(steps.nextInt(STEPS.size())));
    }
    Instant end = clock.instant();
    for (String sid : sids) {
      ops.get(sid).add(perform(stores.get(0), -1, sid, new Get(), end));
      ops.get(sid).add(perform(stores.get(stores.size() - 1), -1, sid, new Orphans(), end));
    }
    for (String sid : sids) {
      List<Op> history1 = new ArrayList<>(ops.get(sid));
      history1.sort(Comparator.comparingLong(Op::invoked));
      check(history, sid, history1);
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

  private static Call choose(SplittableRandom random, String sid, List<ClaimId> known) {
    int dice = random.nextInt(100);
    if (dice < 30 || (known.isEmpty() && dice < 70)) {
      int quantity = 1 + random.nextInt(2);
      OrderSnapshot snapshot =
          new OrderSnapshot(sid, "esim", quantity, null, 100L * quantity, "usd");
      return new Claim(snapshot, LEASES.get(random.nextInt(LEASES.size())));
    }
    if (dice < 75) {
      ClaimId claimId = claimId(random, known);
      if (dice < 50) {
        return new Complete(claimId, ITEMS.get(random.nextInt(ITEMS.size())));
      }
      if (dice < 65) {
        return new Fail(claimId, ERRORS.get(random.nextInt(ERRORS.size())));
      }
      return new Extend(claimId, EXTENSIONS.get(random.nextInt(EXTENSIONS.size())));
    }
    return dice < 90 ? new Get() : new Orphans();
  }

  private static ClaimId claimId(SplittableRandom random, List<ClaimId> known) {
    int dice = random.nextInt(10);
    if (known.isEmpty() || dice == 0) {
      return new ClaimId(1 + random.nextInt(3), ClaimId.newNonce(random));
    }
    return dice < 6 ? known.get(known.size() - 1) : known.get(random.nextInt(known.size()));
  }

  private Op perform(OrderStore store, int thread, String sid, Call call, Instant now) {
    long invoked = sequence.incrementAndGet();
    Object outcome;
    try {
      if (call instanceof Claim) {
        Claim claim = (Claim) call;
        outcome = store.claim(claim.snapshot(), claim.lease());
      } else if (call instanceof Complete) {
        Complete complete = (Complete) call;
        outcome = store.complete(sid, complete.claimId(), complete.item());
      } else if (call instanceof Fail) {
        Fail fail = (Fail) call;
        outcome = store.fail(sid, fail.claimId(), fail.error());
      } else if (call instanceof Extend) {
        Extend extend = (Extend) call;
        outcome = store.extend(sid, extend.claimId(), extend.lease());
      } else if (call instanceof Get) {
        outcome = store.get(sid);
      } else {
        outcome = store.orphans(sid);
      }
    } catch (RuntimeException e) {
      outcome = e;
    }
    return new Op(thread, call, now, invoked, sequence.incrementAndGet(), outcome);
  }

  // ---------------------------------------------------------------- the model

  private static Step step(State state, Op op, String sid) {
    Instant now = OrderStateMachine.now(Clock.fixed(op.now(), ZoneOffset.UTC));
    Call call = op.call();
    if (call instanceof Claim) {
      Claim claim = (Claim) call;
      String nonce =
          op.outcome() instanceof ClaimResult.Claimed
              ? ((ClaimResult.Claimed) op.outcome()).claimId().nonce()
              : NO_NONCE;
      OrderStateMachine.ClaimDecision decision =
          OrderStateMachine.claim(
              state.record(), new ClaimRequest(claim.snapshot(), claim.lease()), now, nonce);
      State next = decision.next() == null ? state : new State(decision.next(), state.orphans());
      return new Step(next, decision.result());
    }
    if (call instanceof Get) {
      return new Step(state, Optional.ofNullable(state.record()));
    }
    if (call instanceof Orphans) {
      return new Step(state, state.orphans());
    }
    if (state.record() == null) {
      return new Step(state, UNKNOWN);
    }
    WriteRequest request;
    if (call instanceof Complete) {
      Complete complete = (Complete) call;
      request = new WriteRequest.Complete(sid, complete.claimId(), complete.item());
    } else if (call instanceof Fail) {
      Fail fail = (Fail) call;
      request = new WriteRequest.Fail(sid, fail.claimId(), fail.error());
    } else {
      Extend extend = (Extend) call;
      request = new WriteRequest.Extend(sid, extend.claimId(), extend.lease());
    }
    OrderStateMachine.WriteDecision decision =
        OrderStateMachine.write(state.record(), request, now);
    List<Orphan> orphans = state.orphans();
    Orphan orphan = decision.orphan();
    if (orphan != null
        && orphans.stream()
            .noneMatch(
                o ->
                    o.claimId().equals(orphan.claimId())
                        && o.item().providerOrderId().equals(orphan.item().providerOrderId()))) {
      List<Orphan> more = new ArrayList<>(orphans);
      more.add(orphan);
      orphans = List.copyOf(more);
    }
    OrderRecord record = decision.next() == null ? state.record() : decision.next();
    return new Step(new State(record, orphans), decision.result());
  }

  boolean matches(Object expected, Object actual) {
    if (UNKNOWN.equals(expected)) {
      return actual instanceof UnknownOrderException;
    }
    if (!countsFailures) {
      return TckFixture.withoutFailures(expected).equals(TckFixture.withoutFailures(actual));
    }
    return expected.equals(actual);
  }

  // ---------------------------------------------------------------- the search

  /** The deepest point the search reached, for the failure message. */
  private static final class Deepest {
    List<Op> path = List.of();
    State state = new State(null, List.of());
    BitSet done = new BitSet();
  }

  /**
   * Checks one order's history; throws AssertionError with the seed and the history if it is not
   * linearizable.
   */
  void check(int history, String sid, List<Op> ops) {
    for (Op op : ops) {
      if (op.outcome() instanceof RuntimeException
          && !(op.outcome() instanceof UnknownOrderException)) {
        throw new AssertionError(
            "a call on order '"
                + sid
                + "' threw "
                + op.outcome()
                + "; "
                + replay(history)
                + "\n"
                + format(ops),
            (Throwable) op.outcome());
      }
    }
    Deepest deepest = new Deepest();
    boolean found =
        search(
            sid,
            ops,
            new BitSet(),
            0,
            new State(null, List.of()),
            new HashSet<>(),
            new ArrayDeque<>(),
            deepest);
    if (!found) {
      throw new AssertionError(explain(history, sid, ops, deepest));
    }
  }

  private boolean search(
      String sid,
      List<Op> ops,
      BitSet done,
      int count,
      State state,
      Set<Key> seen,
      Deque<Op> path,
      Deepest deepest) {
    if (count == ops.size()) {
      return true;
    }
    if (!seen.add(new Key((BitSet) done.clone(), state))) {
      return false;
    }
    if (count > deepest.path.size() || deepest.path.isEmpty()) {
      deepest.path = new ArrayList<>(path);
      deepest.state = state;
      deepest.done = (BitSet) done.clone();
    }
    long firstResponse = Long.MAX_VALUE;
    for (int i = done.nextClearBit(0); i < ops.size(); i = done.nextClearBit(i + 1)) {
      firstResponse = Math.min(firstResponse, ops.get(i).responded());
    }
    for (int i = done.nextClearBit(0); i < ops.size(); i = done.nextClearBit(i + 1)) {
      Op op = ops.get(i);
      if (op.invoked() > firstResponse) {
        continue; // a call not yet placed had returned before this one began
      }
      Step step = step(state, op, sid);
      if (matches(step.expected(), op.outcome())) {
        done.set(i);
        path.addLast(op);
        if (search(sid, ops, done, count + 1, step.next(), seen, path, deepest)) {
          return true;
        }
        path.removeLast();
        done.clear(i);
      }
    }
    return false;
  }

  // ---------------------------------------------------------------- the report

  private String replay(int history) {
    return "seed "
        + seed
        + " (rerun with -Dfencekit.tck.seed="
        + seed
        + " to make the same random"
        + " choices; the thread interleaving is the scheduler's), history "
        + history;
  }

  private String explain(int history, String sid, List<Op> ops, Deepest deepest) {
    StringBuilder out =
        new StringBuilder()
            .append("invariant 5 (linearizability) violated on order '")
            .append(sid)
            .append("': no")
            .append(" sequential order of its ")
            .append(ops.size())
            .append(" calls respects real time")
            .append(
                " and gives the answers the store gave when replayed through OrderStateMachine.\n")
            .append(replay(history))
            .append(".\n")
            .append("The longest valid sequential prefix has ")
            .append(deepest.path.size())
            .append(" calls:\n");
    for (Op op : deepest.path) {
      out.append("  ").append(format(op)).append('\n');
    }
    out.append("after which the model's order is ")
        .append(brief(deepest.state.record()))
        .append(" with orphans ")
        .append(brief(deepest.state.orphans()))
        .append(", and no remaining call can come next:\n");
    long firstResponse = Long.MAX_VALUE;
    for (int i = deepest.done.nextClearBit(0);
        i < ops.size();
        i = deepest.done.nextClearBit(i + 1)) {
      firstResponse = Math.min(firstResponse, ops.get(i).responded());
    }
    for (int i = deepest.done.nextClearBit(0);
        i < ops.size();
        i = deepest.done.nextClearBit(i + 1)) {
      Op op = ops.get(i);
      if (op.invoked() > firstResponse) {
        continue;
      }
      Object expected = step(deepest.state, op, sid).expected();
      out.append("  ")
          .append(format(op))
          .append("\n      the model would answer ")
          .append(brief(expected))
          .append("\n      store answered in full: ")
          .append(op.outcome())
          .append("\n      model answer in full:   ")
          .append(expected)
          .append('\n');
    }
    out.append("The whole history of the order, by invocation:\n").append(format(ops));
    return out.toString();
  }

  private static String format(List<Op> ops) {
    StringBuilder out = new StringBuilder();
    for (Op op : ops) {
      out.append("  ").append(format(op)).append('\n');
    }
    return out.toString();
  }

  private static String format(Op op) {
    return "["
        + op.invoked()
        + ".."
        + op.responded()
        + "] "
        + (op.thread() < 0 ? "final" : "thread " + op.thread())
        + " at "
        + t(op.now())
        + ": "
        + brief(op.call())
        + " -> "
        + brief(op.outcome());
  }

  private static String t(Instant instant) {
    if (instant == null) {
      return "-";
    }
    Duration since = Duration.between(TestClock.START, instant);
    int subMillis = since.toNanosPart() % 1_000_000;
    String fraction = subMillis == 0 ? "" : String.format(".%06d", subMillis).replaceAll("0+$", "");
    return "+" + since.toMillis() + fraction + "ms";
  }

  private static String brief(ClaimId claimId) {
    return claimId == null ? "-" : claimId.fence() + ":" + claimId.nonce().substring(0, 6);
  }

  static String brief(Object value) {
    if (value instanceof Claim) {
      Claim claim = (Claim) value;
      return "claim(quantity "
          + claim.snapshot().quantity()
          + ", lease "
          + claim.lease().toMillis()
          + "ms)";
    }
    if (value instanceof Complete) {
      Complete complete = (Complete) value;
      return "complete("
          + brief(complete.claimId())
          + ", "
          + complete.item().providerOrderId()
          + ")";
    }
    if (value instanceof Fail) {
      Fail fail = (Fail) value;
      return "fail(" + brief(fail.claimId()) + ", " + fail.error() + ")";
    }
    if (value instanceof Extend) {
      Extend extend = (Extend) value;
      return "extend(" + brief(extend.claimId()) + ", " + extend.lease().toMillis() + "ms)";
    }
    if (value instanceof Get) {
      return "get";
    }
    if (value instanceof Orphans) {
      return "orphans";
    }
    if (value instanceof ClaimResult.Claimed) {
      ClaimResult.Claimed claimed = (ClaimResult.Claimed) value;
      return "Claimed " + brief(claimed.claimId()) + " " + brief(claimed.record());
    }
    if (value instanceof ClaimResult) {
      return value.getClass().getSimpleName() + " " + brief(((ClaimResult) value).record());
    }
    if (value instanceof WriteResult) {
      return value.getClass().getSimpleName() + " " + brief(((WriteResult) value).record());
    }
    if (value instanceof Optional) {
      Optional<?> found = (Optional<?>) value;
      return found.isEmpty() ? "empty" : brief(found.get());
    }
    if (value instanceof OrderRecord) {
      OrderRecord r = (OrderRecord) value;
      return "{"
          + r.status()
          + " fence "
          + r.fence()
          + " claim "
          + brief(r.claimId())
          + (r.claimId() == null
              ? ""
              : " [" + t(r.claimedAt()) + ", " + t(r.leaseExpiresAt()) + ")")
          + " settledBy "
          + brief(r.settledBy())
          + " item "
          + (r.item() == null ? "-" : r.item().providerOrderId())
          + " lastError "
          + r.lastError()
          + " quantity "
          + r.snapshot().quantity()
          + " updated "
          + t(r.updatedAt())
          + "}";
    }
    if (value instanceof List) {
      StringBuilder out = new StringBuilder("[");
      for (Object element : (List<?>) value) {
        if (out.length() > 1) {
          out.append(", ");
        }
        if (element instanceof Orphan) {
          Orphan orphan = (Orphan) element;
          out.append(brief(orphan.claimId()))
              .append('/')
              .append(orphan.item().providerOrderId())
              .append('@')
              .append(t(orphan.recordedAt()));
        } else {
          out.append(element);
        }
      }
      return out.append(']').toString();
    }
    if (value instanceof UnknownOrderException) {
      return "UnknownOrderException";
    }
    if (value == null) {
      return "none";
    }
    return String.valueOf(value);
  }
}
