package org.fencekit.tck;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.fencekit.store.ClaimId;
import org.fencekit.store.ClaimResult;
import org.fencekit.store.Item;
import org.fencekit.store.OrderRecord;
import org.fencekit.store.OrderSnapshot;
import org.fencekit.store.OrderStatus;
import org.fencekit.store.OrderStore;
import org.fencekit.store.Orphan;
import org.fencekit.store.WriteResult;

/**
 * Many threads over many orders, then every invariant of the contract checked on what each call was
 * told and on the final state.
 *
 * <p>Each thread makes calls on random orders: a claim (short leases, so they expire while the
 * clock moves) often followed by a complete, a fail, an extend and a complete, or nothing (an
 * abandoned attempt); a write from a random token the order ever granted (mostly superseded ones);
 * a retry of the newest token's settle; a get. Items and errors are derived from the token, so a
 * retried write is a replay, and a token sometimes buys a second item. Thread 0 moves the clock
 * forward now and then. Half the threads call through the peer instance when there is one.
 */
final class StressRun {

  /** The lease every extend asks for; one value, so later extends never end earlier. */
  private static final Duration EXTENSION = Duration.ofMillis(1200);

  private static final List<Duration> LEASES =
      List.of(Duration.ofMillis(1000), Duration.ofMillis(3000));
  private static final List<Duration> STEPS =
      List.of(Duration.ofMillis(200), Duration.ofMillis(700), Duration.ofMillis(1500));

  private final OrderStore store;
  private final OrderStore peer;
  private final TestClock clock;
  private final long seed;
  private final int threads;
  private final int orders;
  private final AtomicLong sequence = new AtomicLong();

  /**
   * One call as made.
   *
   * @param thread the caller
   * @param operation "claim", "complete", "fail", "extend" or "get"
   * @param claimId the token presented, or null for claim and get
   * @param item the item of a complete, else null
   * @param error the error of a fail, else null
   * @param invoked the sequence number taken before the call
   * @param responded the sequence number taken after it returned
   * @param result what the store answered, or the exception it threw
   */
  private record Call(
      int thread,
      String operation,
      ClaimId claimId,
      Item item,
      String error,
      long invoked,
      long responded,
      Object result) {

    boolean written() {
      return result instanceof WriteResult.Written;
    }

    boolean superseded() {
      return result instanceof WriteResult.Superseded;
    }

    OrderRecord record() {
      if (result instanceof ClaimResult) {
        return ((ClaimResult) result).record();
      }
      if (result instanceof WriteResult) {
        return ((WriteResult) result).record();
      }
      if (result instanceof Optional) {
        return (OrderRecord) ((Optional<?>) result).orElse(null);
      }
      return null;
    }

    ClaimId granted() {
      return result instanceof ClaimResult.Claimed
          ? ((ClaimResult.Claimed) result).claimId()
          : null;
    }

    @Override
    public String toString() {
      String shown =
          result instanceof RuntimeException
              ? result.toString()
              : result == null ? "null" : result.getClass().getSimpleName();
      OrderRecord record = record();
      return "["
          + invoked
          + ".."
          + responded
          + "] thread "
          + thread
          + " "
          + operation
          + (claimId == null
              ? ""
              : "("
                  + claimId
                  + (item == null ? "" : ", " + item.providerOrderId())
                  + (error == null ? "" : ", " + error)
                  + ")")
          + (granted() == null ? "" : " granted " + granted())
          + " -> "
          + shown
          + (record == null ? "" : " " + TckFixture.describe(record.sessionId(), claimId, record));
    }
  }

  StressRun(
      OrderStore store, OrderStore peer, TestClock clock, long seed, int threads, int orders) {
    this.store = store;
    this.peer = peer;
    this.clock = clock;
    this.seed = seed;
    this.threads = threads;
    this.orders = orders;
  }

  /** Runs the threads, then checks every order; throws AssertionError naming seed and calls. */
  void runAndCheck() {
    List<String> sids = new ArrayList<>(orders);
    Map<String, List<ClaimId>> claimIds = new ConcurrentHashMap<>();
    Map<String, ConcurrentLinkedQueue<Call>> calls = new ConcurrentHashMap<>();
    for (int i = 0; i < orders; i++) {
      String sid = TckFixture.sid("stress-" + i);
      sids.add(sid);
      claimIds.put(sid, new CopyOnWriteArrayList<>());
      calls.put(sid, new ConcurrentLinkedQueue<>());
    }
    int callsPerThread = Math.max(1, orders * 6 / threads);
    Race.run(
        threads,
        thread -> {
          SplittableRandom random = new SplittableRandom(seed * 31 + thread);
          OrderStore via = peer != null && thread % 2 == 1 ? peer : store;
          for (int i = 0; i < callsPerThread; i++) {
            if (thread == 0 && i % 16 == 15) {
              clock.advance(STEPS.get(random.nextInt(STEPS.size())));
            }
            String sid = sids.get(random.nextInt(sids.size()));
            work(via, thread, sid, random, claimIds.get(sid), calls.get(sid));
          }
          return null;
        });
    for (String sid : sids) {
      List<Call> made = new ArrayList<>(calls.get(sid));
      made.sort(Comparator.comparingLong(Call::invoked));
      check(sid, made);
    }
  }

  private void work(
      OrderStore via,
      int thread,
      String sid,
      SplittableRandom random,
      List<ClaimId> known,
      ConcurrentLinkedQueue<Call> log) {
    int dice = random.nextInt(100);
    if (dice < 40 || known.isEmpty()) {
      Duration lease = LEASES.get(random.nextInt(LEASES.size()));
      Call claim = call(thread, "claim", null, null, null, () -> via.claim(snapshot(sid), lease));
      log.add(claim);
      ClaimId claimId = claim.granted();
      if (claimId == null) {
        return;
      }
      known.add(claimId);
      int next = random.nextInt(10);
      if (next < 4) {
        log.add(complete(via, thread, sid, claimId, item(claimId, random)));
      } else if (next < 7) {
        log.add(fail(via, thread, sid, claimId));
      } else if (next < 8) {
        log.add(
            call(thread, "extend", claimId, null, null, () -> via.extend(sid, claimId, EXTENSION)));
        log.add(complete(via, thread, sid, claimId, item(claimId, random)));
      }
      return;
    }
    if (dice < 75) {
      ClaimId claimId = known.get(random.nextInt(known.size()));
      int kind = random.nextInt(3);
      if (kind == 0) {
        log.add(complete(via, thread, sid, claimId, item(claimId, random)));
      } else if (kind == 1) {
        log.add(fail(via, thread, sid, claimId));
      } else {
        log.add(
            call(thread, "extend", claimId, null, null, () -> via.extend(sid, claimId, EXTENSION)));
      }
      return;
    }
    if (dice < 90) {
      ClaimId claimId = known.get(known.size() - 1);
      log.add(
          random.nextBoolean()
              ? complete(via, thread, sid, claimId, item(claimId, random))
              : fail(via, thread, sid, claimId));
      return;
    }
    log.add(call(thread, "get", null, null, null, () -> via.get(sid)));
  }

  private static OrderSnapshot snapshot(String sid) {
    return new OrderSnapshot(sid, "esim-stress", 1, null, 500, "usd");
  }

  /** The item a token buys: one per token, and now and then a second one. */
  private static Item item(ClaimId claimId, SplittableRandom random) {
    String purchase =
        "prov-"
            + claimId.fence()
            + "-"
            + claimId.nonce().substring(0, 8)
            + (random.nextInt(10) == 0 ? "-b" : "");
    return new Item(purchase, "code for " + purchase);
  }

  private Call complete(OrderStore via, int thread, String sid, ClaimId claimId, Item item) {
    return call(thread, "complete", claimId, item, null, () -> via.complete(sid, claimId, item));
  }

  private Call fail(OrderStore via, int thread, String sid, ClaimId claimId) {
    String error = "attempt " + claimId.fence() + " failed";
    return call(thread, "fail", claimId, null, error, () -> via.fail(sid, claimId, error));
  }

  /** An operation to record. */
  @FunctionalInterface
  private interface Operation {
    Object run();
  }

  private Call call(
      int thread, String operation, ClaimId claimId, Item item, String error, Operation op) {
    long invoked = sequence.incrementAndGet();
    Object result;
    try {
      result = op.run();
    } catch (RuntimeException e) {
      result = e;
    }
    return new Call(
        thread, operation, claimId, item, error, invoked, sequence.incrementAndGet(), result);
  }

  // ---------------------------------------------------------------- the invariants

  private AssertionError violation(
      String sid, String invariant, List<Call> involved, List<Call> all) {
    StringBuilder out =
        new StringBuilder()
            .append(invariant)
            .append(" (order '")
            .append(sid)
            .append("'; seed ")
            .append(seed)
            .append(", rerun with -Dfencekit.tck.seed=")
            .append(seed)
            .append(" to make the same random choices)\ncalls involved:\n");
    for (Call call : involved) {
      out.append("  ").append(call).append('\n');
    }
    out.append("every call on the order, by invocation:\n");
    for (Call call : all) {
      out.append("  ").append(call).append('\n');
    }
    return new AssertionError(out.toString());
  }

  private void check(String sid, List<Call> calls) {
    for (Call call : calls) {
      if (call.result() instanceof RuntimeException) {
        AssertionError error =
            violation(sid, "a call threw " + call.result(), List.of(call), calls);
        error.initCause((Throwable) call.result());
        throw error;
      }
    }
    OrderRecord last = store.get(sid).orElse(null);
    List<Orphan> orphans = store.orphans(sid);

    // Invariant 4: fences 1..n, each granted once, in real-time order.
    Map<Long, Call> claims = new HashMap<>();
    for (Call call : calls) {
      ClaimId granted = call.granted();
      if (granted == null) {
        continue;
      }
      Call twin = claims.put(granted.fence(), call);
      if (twin != null) {
        throw violation(
            sid,
            "fence "
                + granted.fence()
                + " was granted twice (invariant 4: fences"
                + " strictly increase)",
            List.of(twin, call),
            calls);
      }
      OrderRecord record = call.record();
      if (!granted.equals(record.claimId())
          || record.fence() != granted.fence()
          || record.status() != OrderStatus.PENDING) {
        throw violation(
            sid,
            "a Claimed answer must carry a PENDING record holding the granted"
                + " token and its fence",
            List.of(call),
            calls);
      }
    }
    int granted = claims.size();
    for (long fence = 1; fence <= granted; fence++) {
      if (!claims.containsKey(fence)) {
        throw violation(
            sid,
            granted
                + " claims were granted but fence "
                + fence
                + " is missing:"
                + " fences must be 1, 2, 3, ... (invariant 4)",
            List.of(),
            calls);
      }
    }
    for (Call a : claims.values()) {
      for (Call b : claims.values()) {
        if (a.responded() < b.invoked() && a.granted().fence() >= b.granted().fence()) {
          throw violation(
              sid,
              "a claim granted after another had returned got a fence no larger" + " (invariant 4)",
              List.of(a, b),
              calls);
        }
      }
    }
    if (granted == 0) {
      if (last != null) {
        throw violation(sid, "no claim was granted yet get finds " + last, List.of(), calls);
      }
      return;
    }
    if (last == null || last.fence() != granted) {
      throw violation(
          sid,
          granted
              + " claims were granted but the order's fence is "
              + (last == null ? "missing" : last.fence()),
          List.of(),
          calls);
    }

    // Invariant 2: no Written for a token that was superseded before the write began.
    for (Call write : calls) {
      if (!write.written()) {
        continue;
      }
      for (Call claim : claims.values()) {
        if (claim.granted().fence() > write.claimId().fence()
            && claim.responded() < write.invoked()) {
          throw violation(
              sid,
              "a write from a token superseded before it began answered Written" + " (invariant 2)",
              List.of(claim, write),
              calls);
        }
      }
    }

    // Invariants 3 and 6: at most one purchase lands; PROVISIONED never changes afterwards.
    Call provisioned = null;
    for (Call call : calls) {
      if (!call.operation().equals("complete") || !call.written()) {
        continue;
      }
      if (provisioned == null) {
        provisioned = call;
      } else if (!provisioned.claimId().equals(call.claimId())
          || !provisioned.item().equals(call.item())) {
        throw violation(
            sid,
            "two different completes answered Written (only a replay of the"
                + " settling complete may: invariant 3)",
            List.of(provisioned, call),
            calls);
      }
    }
    if (provisioned != null) {
      OrderRecord done = provisioned.record();
      for (Call call : calls) {
        if (call.invoked() < provisioned.responded()) {
          continue;
        }
        OrderRecord seen = call.record();
        boolean answer =
            !call.operation().equals("claim") || call.result() instanceof ClaimResult.Provisioned;
        boolean write =
            !(call.operation().equals("fail") || call.operation().equals("extend"))
                || call.superseded();
        if (seen == null || !seen.equals(done) || !answer || !write) {
          throw violation(
              sid,
              "after a complete landed, every later call must see the provisioned"
                  + " order unchanged, claims must answer Provisioned and other writes Superseded"
                  + " (invariant 3)",
              List.of(provisioned, call),
              calls);
        }
      }
      if (!done.equals(last)) {
        throw violation(
            sid,
            "the order was provisioned but get now finds " + TckFixture.describe(sid, null, last),
            List.of(provisioned),
            calls);
      }
    }

    // Invariant 1: a claim is granted only once the previous one is settled or its lease over.
    for (long fence = 1; fence < granted; fence++) {
      long f = fence;
      Call previous = claims.get(f);
      Call next = claims.get(f + 1);
      boolean settled =
          calls.stream()
              .anyMatch(
                  c ->
                      c.written()
                          && c.claimId().equals(previous.granted())
                          && (c.operation().equals("fail") || c.operation().equals("complete")));
      Instant expiry = previous.record().leaseExpiresAt();
      Instant extendedAt = null;
      for (Call call : calls) {
        if (call.operation().equals("extend")
            && call.written()
            && call.claimId().equals(previous.granted())
            && (extendedAt == null || !call.record().updatedAt().isBefore(extendedAt))) {
          extendedAt = call.record().updatedAt();
          expiry = call.record().leaseExpiresAt();
        }
      }
      if (!settled && next.record().claimedAt().isBefore(expiry)) {
        throw violation(
            sid,
            "claim "
                + (f + 1)
                + " was granted at "
                + next.record().claimedAt()
                + " while claim "
                + f
                + " was unsettled and its lease ran to "
                + expiry
                + " (invariant 1: one live claim at a time)",
            List.of(previous, next),
            calls);
      }
    }

    // The final state agrees with the answers.
    ClaimId newest = claims.get((long) granted).granted();
    if (last.claimId() != null && !last.claimId().equals(newest)) {
      throw violation(
          sid,
          "the order's claim is " + last.claimId() + " but the newest granted is " + newest,
          List.of(claims.get((long) granted)),
          calls);
    }
    if (last.claimId() != null) {
      for (Call call : calls) {
        if (newest.equals(call.claimId()) && !call.operation().equals("get") && !call.written()) {
          throw violation(
              sid,
              "a write from the token that is still the order's claim was not" + " Written",
              List.of(call),
              calls);
        }
      }
    }
    if (last.status() == OrderStatus.FAILED) {
      boolean explained =
          calls.stream()
              .anyMatch(
                  c ->
                      c.operation().equals("fail")
                          && c.written()
                          && c.claimId().equals(last.settledBy())
                          && c.error().equals(last.lastError()));
      if (!explained) {
        throw violation(
            sid,
            "the order is FAILED by "
                + last.settledBy()
                + " with '"
                + last.lastError()
                + "' but no fail with that token and error answered Written",
            List.of(),
            calls);
      }
    }

    // Invariant 6: every superseded complete is an orphan, once per (claimId, providerOrderId).
    Map<String, Item> expected = new HashMap<>();
    for (Call call : calls) {
      if (call.operation().equals("complete") && call.superseded()) {
        expected.put(call.claimId() + "/" + call.item().providerOrderId(), call.item());
      }
    }
    Set<String> listed = new HashSet<>();
    for (Orphan orphan : orphans) {
      String key = orphan.claimId() + "/" + orphan.item().providerOrderId();
      if (!listed.add(key)) {
        throw violation(
            sid,
            "orphan "
                + key
                + " is listed twice (invariant 6: once per claimId and"
                + " providerOrderId)",
            List.of(),
            calls);
      }
      if (!orphan.item().equals(expected.get(key)) || !orphan.sessionId().equals(sid)) {
        throw violation(
            sid, "orphan " + orphan + " matches no superseded complete", List.of(), calls);
      }
    }
    if (!listed.equals(expected.keySet())) {
      Set<String> missing = new HashSet<>(expected.keySet());
      missing.removeAll(listed);
      throw violation(
          sid,
          "superseded completes "
              + missing
              + " are not in orphans (invariant 6:"
              + " nothing lost)",
          List.of(),
          calls);
    }
  }
}
