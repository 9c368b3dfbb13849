package org.fencekit.tck;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import org.fencekit.history.Answer;
import org.fencekit.history.Call;
import org.fencekit.history.History;
import org.fencekit.history.HistoryCheck;
import org.fencekit.history.Operation;
import org.fencekit.history.Request;
import org.fencekit.store.ClaimId;
import org.fencekit.store.Item;
import org.fencekit.store.OrderRecord;
import org.fencekit.store.OrderSnapshot;
import org.fencekit.store.OrderStore;
import org.fencekit.store.Orphan;

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
 *
 * <p>Every call is recorded in a {@link History}, then each order's get and orphans. Each order is
 * checked in three steps: no call threw or answered null; the history kit's {@link HistoryCheck}
 * (no lost write, every settle and claim traced to a call answered Written or Claimed, fences
 * strictly increasing, every superseded complete orphaned once and no other orphan); then the
 * invariants the kit does not check, below.
 */
record StressRun(
    OrderStore store, OrderStore peer, TestClock clock, long seed, int threads, int orders) {

  /** The lease every extend asks for; one value, so later extends never end earlier. */
  private static final Duration EXTENSION = Duration.ofMillis(1200);

  private static final List<Duration> LEASES =
      List.of(Duration.ofMillis(1000), Duration.ofMillis(3000));
  private static final List<Duration> STEPS =
      List.of(Duration.ofMillis(200), Duration.ofMillis(700), Duration.ofMillis(1500));

  /** Runs the threads, then checks every order; throws AssertionError naming seed and calls. */
  void runAndCheck() {
    History history = new History(clock);
    List<String> sids = new ArrayList<>(orders);
    Map<String, List<ClaimId>> claimIds = new ConcurrentHashMap<>();
    for (int i = 0; i < orders; i++) {
      String sid = TckFixture.sid("stress-" + i);
      sids.add(sid);
      claimIds.put(sid, new CopyOnWriteArrayList<>());
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
            work(history, "thread " + thread, via, sid, random, claimIds.get(sid));
          }
          return null;
        });
    Map<String, List<Call>> byOrder = history.byOrder();
    for (String sid : sids) {
      Call last = history.call("final", Request.get(sid), store);
      Call orphans = history.call("final", Request.orphans(sid), store);
      check(sid, byOrder.getOrDefault(sid, List.of()), last, orphans);
    }
  }

  private static void work(
      History history,
      String caller,
      OrderStore via,
      String sid,
      SplittableRandom random,
      List<ClaimId> known) {
    int dice = random.nextInt(100);
    if (dice < 40 || known.isEmpty()) {
      Duration lease = LEASES.get(random.nextInt(LEASES.size()));
      Call claim = history.call(caller, Request.claim(snapshot(sid), lease), via);
      if (claim.answer() != Answer.CLAIMED) {
        return;
      }
      ClaimId claimId = claim.claimId();
      known.add(claimId);
      int next = random.nextInt(10);
      if (next < 4) {
        history.call(caller, complete(sid, claimId, random), via);
      } else if (next < 7) {
        history.call(caller, fail(sid, claimId), via);
      } else if (next < 8) {
        history.call(caller, Request.extend(sid, claimId, EXTENSION), via);
        history.call(caller, complete(sid, claimId, random), via);
      }
      return;
    }
    Request request;
    if (dice < 75) {
      ClaimId claimId = known.get(random.nextInt(known.size()));
      int kind = random.nextInt(3);
      request =
          kind == 0
              ? complete(sid, claimId, random)
              : kind == 1 ? fail(sid, claimId) : Request.extend(sid, claimId, EXTENSION);
    } else if (dice < 90) {
      ClaimId claimId = known.get(known.size() - 1);
      request = random.nextBoolean() ? complete(sid, claimId, random) : fail(sid, claimId);
    } else {
      request = Request.get(sid);
    }
    history.call(caller, request, via);
  }

  private static OrderSnapshot snapshot(String sid) {
    return new OrderSnapshot(sid, "esim-stress", 1, null, 500, "usd");
  }

  /** A complete buying the token's item: one per token, and now and then a second one. */
  private static Request complete(String sid, ClaimId claimId, SplittableRandom random) {
    String purchase =
        "prov-"
            + claimId.fence()
            + "-"
            + claimId.nonce().substring(0, 8)
            + (random.nextInt(10) == 0 ? "-b" : "");
    return Request.complete(sid, claimId, new Item(purchase, "code for " + purchase));
  }

  private static Request fail(String sid, ClaimId claimId) {
    return Request.fail(sid, claimId, "attempt " + claimId.fence() + " failed");
  }

  // ---------------------------------------------------------------- the invariants

  private AssertionError violation(
      String sid, String invariant, List<Call> involved, List<Call> all) {
    String rerun = "'; seed " + seed + ", rerun with -Dfencekit.tck.seed=" + seed;
    StringBuilder out = new StringBuilder(invariant + "\norder '" + sid + rerun);
    out.append(" to make the same random choices\n");
    if (!involved.isEmpty()) {
      out.append("calls involved:\n");
    }
    involved.forEach(call -> out.append("  ").append(show(call)).append('\n'));
    out.append("every call on the order, by invocation:\n");
    all.forEach(call -> out.append("  ").append(show(call)).append('\n'));
    return new AssertionError(out.toString());
  }

  /** A call for a message: who, what, with which claim ids, what it answered and its record. */
  private static String show(Call call) {
    OrderRecord record = call.record();
    return call.describe()
        + " (returned #"
        + call.responded()
        + ")"
        + (record == null
            ? ""
            : " " + TckFixture.describe(call.sessionId(), call.request().claimId(), record));
  }

  /**
   * Checks one order: {@code run} are the calls of the run on it, {@code last} and {@code orphans}
   * its final get and orphans.
   */
  private void check(String sid, List<Call> run, Call last, Call orphans) {
    List<Call> made = new ArrayList<>(run);
    made.sort(Comparator.comparingLong(Call::invoked));
    List<Call> calls = new ArrayList<>(made);
    calls.add(last);
    List<Call> all = new ArrayList<>(calls);
    all.add(orphans);
    for (Call call : all) {
      if (call.failure() != null) {
        AssertionError error = violation(sid, "a call threw " + call.failure(), List.of(call), all);
        error.initCause(call.failure());
        throw error;
      }
      if (call.result() == null) {
        throw violation(sid, "a call answered null", List.of(call), all);
      }
    }
    @SuppressWarnings("unchecked")
    List<Orphan> listed = (List<Orphan>) orphans.result();
    HistoryCheck.Result found = HistoryCheck.check(made, Map.of(sid, last), Map.of(sid, listed));
    if (found.total() > 0) {
      throw violation(
          sid,
          found.kept().stream()
              .map(v -> v + "; expected: " + v.expected())
              .collect(Collectors.joining("\n")),
          List.of(),
          all);
    }
    OrderRecord current = last.record();

    // Invariant 4, beyond the kit's (d): the fences granted are 1..n, and the order's is n.
    Map<Long, Call> claims = new HashMap<>();
    for (Call call : made) {
      if (call.answer() == Answer.CLAIMED) {
        claims.put(call.claimId().fence(), call);
      }
    }
    int granted = claims.size();
    for (long fence = 1; fence <= granted; fence++) {
      if (!claims.containsKey(fence)) {
        throw violation(
            sid,
            String.format(
                "%s claims were granted but fence %s is missing: fences must be 1, 2, 3, ..."
                    + " (invariant 4)",
                granted, fence),
            List.of(),
            all);
      }
    }
    if (granted == 0) {
      if (current != null) {
        throw violation(sid, "no claim was granted yet get finds " + current, List.of(last), all);
      }
      return;
    }
    if (current == null || current.fence() != granted) {
      throw violation(
          sid,
          granted
              + " claims were granted but the order's fence is "
              + (current == null ? "missing" : current.fence()),
          List.of(last),
          all);
    }

    // Invariant 2: no Written for a token that was superseded before the write began.
    for (Call write : made) {
      if (write.answer() != Answer.WRITTEN) {
        continue;
      }
      for (Call claim : claims.values()) {
        if (claim.claimId().fence() > write.claimId().fence() && claim.precedes(write)) {
          throw violation(
              sid,
              "a write from a token superseded before it began answered Written (invariant 2)",
              List.of(claim, write),
              all);
        }
      }
    }

    // Invariant 3: at most one purchase lands; PROVISIONED never changes afterwards.
    Call provisioned = null;
    for (Call call : made) {
      if (call.operation() != Operation.COMPLETE || call.answer() != Answer.WRITTEN) {
        continue;
      }
      if (provisioned == null) {
        provisioned = call;
      } else if (!provisioned.claimId().equals(call.claimId())
          || !provisioned.request().item().equals(call.request().item())) {
        throw violation(
            sid,
            "two different completes answered Written (only a replay of the"
                + " settling complete may: invariant 3)",
            List.of(provisioned, call),
            all);
      }
    }
    if (provisioned != null) {
      for (Call call : calls) {
        if (call.invoked() < provisioned.responded()) {
          continue;
        }
        Operation operation = call.operation();
        boolean answer = operation != Operation.CLAIM || call.answer() == Answer.PROVISIONED;
        boolean write =
            (operation != Operation.FAIL && operation != Operation.EXTEND)
                || call.answer() == Answer.SUPERSEDED;
        if (!provisioned.record().equals(call.record()) || !answer || !write) {
          throw violation(
              sid,
              "after a complete landed, every later call must see the provisioned"
                  + " order unchanged, claims must answer Provisioned and other writes Superseded"
                  + " (invariant 3)",
              List.of(provisioned, call),
              all);
        }
      }
    }

    // Invariant 1: a claim is granted only once the previous one is settled or its lease over.
    for (long fence = 1; fence < granted; fence++) {
      Call previous = claims.get(fence);
      Call next = claims.get(fence + 1);
      boolean settled = false;
      Instant expiry = previous.record().leaseExpiresAt();
      Instant extendedAt = null;
      for (Call call : made) {
        if (call.answer() != Answer.WRITTEN || !call.claimId().equals(previous.claimId())) {
          continue;
        }
        settled |= call.operation().settles();
        if (call.operation() == Operation.EXTEND
            && (extendedAt == null || !call.record().updatedAt().isBefore(extendedAt))) {
          extendedAt = call.record().updatedAt();
          expiry = call.record().leaseExpiresAt();
        }
      }
      if (!settled && next.record().claimedAt().isBefore(expiry)) {
        throw violation(
            sid,
            String.format(
                "claim %s was granted at %s while claim %s was unsettled and its lease ran to %s"
                    + " (invariant 1: one live claim at a time)",
                fence + 1, next.record().claimedAt(), fence, expiry),
            List.of(previous, next),
            all);
      }
    }

    // While the newest claim still holds the order, every write it sent was Written.
    ClaimId newest = claims.get((long) granted).claimId();
    if (current.claimId() != null) {
      for (Call call : made) {
        if (call.operation().presents()
            && newest.equals(call.claimId())
            && call.answer() != Answer.WRITTEN) {
          throw violation(
              sid,
              "a write from the token that is still the order's claim was not Written",
              List.of(call),
              all);
        }
      }
    }
  }
}
