package org.fencekit.history;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import org.fencekit.store.ClaimId;
import org.fencekit.store.ClaimResult;
import org.fencekit.store.OrderRecord;
import org.fencekit.store.Orphan;
import org.fencekit.store.UnknownOrderException;
import org.fencekit.store.WriteResult;
import org.fencekit.store.spi.ClaimRequest;
import org.fencekit.store.spi.OrderStateMachine;
import org.fencekit.store.spi.WriteRequest;

/**
 * Invariant 5 of the contract on one order's recorded calls: some sequential order of them respects
 * real time and, replayed through the reference model {@link OrderStateMachine}, answers every call
 * exactly as the store did, records included.
 *
 * <p>A Wing and Gong search with Lowe's memo of (calls placed, model state) pairs: a call may be
 * placed next only if no call still unplaced had responded before it was invoked ({@link
 * Call#precedes}). Each call is replayed at its {@link Call#at()}. A granted claim's nonce is
 * random, so the model is given the nonce the store's Claimed answer carried; every other field
 * must match. Linearizability is local, so orders are checked one at a time.
 */
public final class LinearizabilityCheck {

  /** The nonce the model is given for a claim the store did not grant. */
  private static final String NO_NONCE = "0".repeat(32);

  /** What the model answers a write on an order that does not exist. */
  private static final String UNKNOWN = "UnknownOrderException";

  private final String sid;
  private final List<Call> calls;
  private final boolean countsFailures;
  private final Instant origin;

  /** The model: the order's record (or null) and its orphans. */
  private record State(OrderRecord record, List<Orphan> orphans) {}

  private record Step(State next, Object expected) {}

  private record Key(BitSet done, State state) {}

  /** The deepest point the search reached, for the failure message. */
  private static final class Deepest {
    List<Call> path = List.of();
    State state = new State(null, List.of());
    BitSet done = new BitSet();
  }

  private LinearizabilityCheck(List<Call> calls, boolean countsFailures) {
    this.calls = calls.stream().sorted(Comparator.comparingLong(Call::invoked)).toList();
    this.sid = this.calls.get(0).sessionId();
    this.countsFailures = countsFailures;
    this.origin = this.calls.stream().map(Call::at).min(Comparator.naturalOrder()).orElseThrow();
  }

  /**
   * Checks one order's calls.
   *
   * @param calls every call made on one order, in any order, including the final reads (a get and
   *     orphans after everything else) the end state is checked by
   * @param countsFailures whether the store counts failures ({@link OrderRecord#failures}, {@link
   *     OrderRecord#failedSince}); if not, those fields are not compared
   * @param replay how to make the history again (a seed, a history number), put in the message
   * @throws AssertionError if a call threw anything but {@link UnknownOrderException}, or no
   *     sequential order explains the answers: the message holds {@code replay}, the longest valid
   *     sequential prefix, what the model would answer each call that could come next, and the
   *     whole history of the order
   */
  public static void check(List<Call> calls, boolean countsFailures, String replay) {
    if (calls.isEmpty()) {
      return;
    }
    new LinearizabilityCheck(calls, countsFailures).check(replay);
  }

  /**
   * {@code answer} (a record, or a claim, write or get answer carrying one) with the failure fields
   * cleared, to compare the answers of a store that does not count failures.
   */
  public static Object withoutFailures(Object answer) {
    if (answer instanceof OrderRecord r) {
      return withoutFailures(r);
    }
    if (answer instanceof ClaimResult.Claimed c) {
      return new ClaimResult.Claimed(c.claimId(), withoutFailures(c.record()));
    }
    if (answer instanceof ClaimResult.InFlight c) {
      return new ClaimResult.InFlight(withoutFailures(c.record()));
    }
    if (answer instanceof ClaimResult.Provisioned c) {
      return new ClaimResult.Provisioned(withoutFailures(c.record()));
    }
    if (answer instanceof ClaimResult.Mismatch c) {
      return new ClaimResult.Mismatch(withoutFailures(c.record()), c.fields());
    }
    if (answer instanceof WriteResult.Written w) {
      return new WriteResult.Written(withoutFailures(w.record()));
    }
    if (answer instanceof WriteResult.Superseded w) {
      return new WriteResult.Superseded(withoutFailures(w.current()));
    }
    if (answer instanceof Optional<?> o && o.isPresent() && o.get() instanceof OrderRecord r) {
      return Optional.of(withoutFailures(r));
    }
    return answer;
  }

  /** {@code r} with its failure fields cleared. */
  public static OrderRecord withoutFailures(OrderRecord r) {
    return new OrderRecord(
        r.snapshot(),
        r.status(),
        r.item(),
        r.lastError(),
        r.claimId(),
        r.claimedAt(),
        r.leaseExpiresAt(),
        r.fence(),
        r.settledBy(),
        r.updatedAt());
  }

  private void check(String replay) {
    for (Call call : calls) {
      if (call.failure() != null && call.answer() != Answer.UNKNOWN_ORDER) {
        throw new AssertionError(
            String.format(
                "a call on order '%s' threw %s; %s\n%s",
                sid, call.failure(), replay, format(calls)),
            call.failure());
      }
    }
    Deepest deepest = new Deepest();
    if (!search(
        new BitSet(),
        0,
        new State(null, List.of()),
        new HashSet<>(),
        new ArrayDeque<>(),
        deepest)) {
      throw new AssertionError(explain(replay, deepest));
    }
  }

  // ---------------------------------------------------------------- the model

  private static Step step(State state, Call call) {
    Instant now = OrderStateMachine.now(Clock.fixed(call.at(), ZoneOffset.UTC));
    Request request = call.request();
    switch (call.operation()) {
      case CLAIM -> {
        String nonce =
            call.result() instanceof ClaimResult.Claimed claimed
                ? claimed.claimId().nonce()
                : NO_NONCE;
        OrderStateMachine.ClaimDecision decision =
            OrderStateMachine.claim(
                state.record(), new ClaimRequest(request.snapshot(), request.lease()), now, nonce);
        State next = decision.next() == null ? state : new State(decision.next(), state.orphans());
        return new Step(next, decision.result());
      }
      case GET -> {
        return new Step(state, Optional.ofNullable(state.record()));
      }
      case ORPHANS -> {
        return new Step(state, state.orphans());
      }
      default -> {
        if (state.record() == null) {
          return new Step(state, UNKNOWN);
        }
        OrderStateMachine.WriteDecision decision =
            OrderStateMachine.write(state.record(), writeRequest(request), now);
        List<Orphan> orphans = state.orphans();
        if (decision.orphan() != null && orphans.stream().noneMatch(call::left)) {
          List<Orphan> more = new ArrayList<>(orphans);
          more.add(decision.orphan());
          orphans = List.copyOf(more);
        }
        OrderRecord record = decision.next() == null ? state.record() : decision.next();
        return new Step(new State(record, orphans), decision.result());
      }
    }
  }

  private static WriteRequest writeRequest(Request request) {
    return switch (request.operation()) {
      case COMPLETE ->
          new WriteRequest.Complete(request.sessionId(), request.claimId(), request.item());
      case FAIL -> new WriteRequest.Fail(request.sessionId(), request.claimId(), request.error());
      case EXTEND ->
          new WriteRequest.Extend(request.sessionId(), request.claimId(), request.lease());
      default -> throw new IllegalArgumentException(request.operation() + " writes nothing");
    };
  }

  private boolean matches(Object expected, Call call) {
    if (UNKNOWN.equals(expected)) {
      return call.answer() == Answer.UNKNOWN_ORDER;
    }
    if (call.failure() != null) {
      return false;
    }
    if (!countsFailures) {
      return withoutFailures(expected).equals(withoutFailures(call.result()));
    }
    return expected.equals(call.result());
  }

  // ---------------------------------------------------------------- the search

  private boolean search(
      BitSet done, int count, State state, Set<Key> seen, Deque<Call> path, Deepest deepest) {
    if (count == calls.size()) {
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
    for (int i : candidates(done)) {
      Call call = calls.get(i);
      Step step = step(state, call);
      if (matches(step.expected(), call)) {
        done.set(i);
        path.addLast(call);
        if (search(done, count + 1, step.next(), seen, path, deepest)) {
          return true;
        }
        path.removeLast();
        done.clear(i);
      }
    }
    return false;
  }

  /** The calls not yet placed that may come next: none unplaced responded before they began. */
  private List<Integer> candidates(BitSet done) {
    long firstResponse = Long.MAX_VALUE;
    for (int i = done.nextClearBit(0); i < calls.size(); i = done.nextClearBit(i + 1)) {
      firstResponse = Math.min(firstResponse, calls.get(i).responded());
    }
    List<Integer> next = new ArrayList<>();
    for (int i = done.nextClearBit(0); i < calls.size(); i = done.nextClearBit(i + 1)) {
      if (calls.get(i).invoked() <= firstResponse) {
        next.add(i);
      }
    }
    return next;
  }

  // ---------------------------------------------------------------- the report

  private String explain(String replay, Deepest deepest) {
    StringBuilder out =
        new StringBuilder(
            String.format(
                "invariant 5 (linearizability) violated on order '%s': no sequential order of its"
                    + " %s calls respects real time and gives the answers the store gave when"
                    + " replayed through OrderStateMachine.\n%s.\nTimes are after %s, the clock as"
                    + " the first call began.\nThe longest valid sequential prefix has %s calls:\n",
                sid, calls.size(), replay, origin, deepest.path.size()));
    out.append(format(deepest.path));
    out.append("after which the model's order is ")
        .append(brief(deepest.state.record()))
        .append(" with orphans ")
        .append(brief(deepest.state.orphans()))
        .append(", and no remaining call can come next:\n");
    for (int i : candidates(deepest.done)) {
      Call call = calls.get(i);
      Object expected = step(deepest.state, call).expected();
      out.append("  ")
          .append(format(call))
          .append("\n      the model would answer ")
          .append(brief(expected))
          .append("\n      store answered in full: ")
          .append(outcome(call))
          .append("\n      model answer in full:   ")
          .append(expected)
          .append('\n');
    }
    out.append("The whole history of the order, by invocation:\n").append(format(calls));
    return out.toString();
  }

  private static Object outcome(Call call) {
    return call.failure() != null ? call.failure() : call.result();
  }

  private String format(List<Call> some) {
    StringBuilder out = new StringBuilder();
    for (Call call : some) {
      out.append("  ").append(format(call)).append('\n');
    }
    return out.toString();
  }

  private String format(Call call) {
    return String.format(
        "[%s..%s] %s at %s: %s -> %s",
        call.invoked(),
        call.responded(),
        call.caller(),
        t(call.at()),
        brief(call.request()),
        brief(outcome(call)));
  }

  private String t(Instant instant) {
    if (instant == null) {
      return "-";
    }
    Duration since = Duration.between(origin, instant);
    int subMillis = since.toNanosPart() % 1_000_000;
    String fraction =
        subMillis == 0 ? "" : String.format(Locale.ROOT, ".%06d", subMillis).replaceAll("0+$", "");
    return "+" + since.toMillis() + fraction + "ms";
  }

  private static String brief(ClaimId claimId) {
    return claimId == null ? "-" : claimId.fence() + ":" + claimId.nonce().substring(0, 6);
  }

  private static String brief(Request request) {
    return switch (request.operation()) {
      case CLAIM ->
          String.format(
              "claim(quantity %s, lease %sms)",
              request.snapshot().quantity(), request.lease().toMillis());
      case COMPLETE ->
          "complete(" + brief(request.claimId()) + ", " + request.item().providerOrderId() + ")";
      case FAIL -> "fail(" + brief(request.claimId()) + ", " + request.error() + ")";
      case EXTEND ->
          "extend(" + brief(request.claimId()) + ", " + request.lease().toMillis() + "ms)";
      case GET, ORPHANS -> request.operation().label();
    };
  }

  private String brief(Object value) {
    if (value instanceof ClaimResult.Claimed claimed) {
      return "Claimed " + brief(claimed.claimId()) + " " + brief(claimed.record());
    }
    if (value instanceof ClaimResult claim) {
      return value.getClass().getSimpleName() + " " + brief(claim.record());
    }
    if (value instanceof WriteResult write) {
      return value.getClass().getSimpleName() + " " + brief(write.record());
    }
    if (value instanceof Optional<?> found) {
      return found.isEmpty() ? "empty" : brief(found.get());
    }
    if (value instanceof OrderRecord r) {
      return String.format(
          "{%s fence %s claim %s%s settledBy %s item %s lastError %s quantity %s updated %s}",
          r.status(),
          r.fence(),
          brief(r.claimId()),
          r.claimId() == null ? "" : " [" + t(r.claimedAt()) + ", " + t(r.leaseExpiresAt()) + ")",
          brief(r.settledBy()),
          r.item() == null ? "-" : r.item().providerOrderId(),
          r.lastError(),
          r.snapshot().quantity(),
          t(r.updatedAt()));
    }
    if (value instanceof List<?> list) {
      StringBuilder out = new StringBuilder("[");
      for (Object element : list) {
        if (out.length() > 1) {
          out.append(", ");
        }
        if (element instanceof Orphan orphan) {
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
      return UNKNOWN;
    }
    if (value == null) {
      return "none";
    }
    return String.valueOf(value);
  }
}
