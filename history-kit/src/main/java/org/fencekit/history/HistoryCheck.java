package org.fencekit.history;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.fencekit.store.ClaimId;
import org.fencekit.store.OrderRecord;
import org.fencekit.store.OrderStatus;
import org.fencekit.store.Orphan;

/**
 * The checks of a recorded history under load, each named by its letter (the fault harness's
 * checks; a fault, if there was one, is given by its start, its end and whether it lost data):
 *
 * <ol type="a">
 *   <li>every {@code Written} (and {@code Claimed}) is what any later read of the order shows,
 *       unless a newer claim replaced it: a later read has a fence at least as high, and at the
 *       same fence shows that write (the same settle, or the same claim still held or settled by
 *       it);
 *   <li>no write with a superseded token landed: every settled record observed traces to a complete
 *       or fail that sent its item or error, carried the record's {@code settledBy} and was
 *       answered {@code Written} or with an unknown outcome (a replay sends the same item or error
 *       again; otherwise items and errors are unique per call); every claim observed was granted;
 *       after a data loss no token from before it settles anything;
 *   <li>a {@code StoreUnavailableException} with {@code outcomeUnknown() == false} left the order
 *       as before: nothing it would have written is ever observed;
 *   <li>fences strictly increase per order: no two claims granted the same fence, a {@code Claimed}
 *       answer carries a PENDING record holding its claim id at its fence, and reads in real time
 *       order never see the fence go down;
 *   <li>every superseded complete is in {@code orphans} exactly once, and every orphan is what a
 *       complete not answered {@code Written} sent: its order, claim id and item;
 *   <li>the store recovers by itself within the bound: a call succeeds within it after the fault is
 *       over, and no call fails that started later than that;
 *   <li>no exception escapes but {@code StoreUnavailableException} and {@code
 *       UnknownOrderException}.
 * </ol>
 *
 * With a fault that loses data (a Redis restart without persistence) checks (a), (d) and (e)
 * compare only calls on the same side of the fault. Calls are ordered in real time by {@link
 * Call#precedes}; a fault's window and the recovery by {@link System#nanoTime()}.
 */
public final class HistoryCheck {

  private static final int MAX_KEPT = 25;

  private final List<Violation> violations = new ArrayList<>();
  private final int[] counts = new int[7];
  private final long faultStart;
  private final long faultEnd;
  private final boolean dataLoss;

  private HistoryCheck(long faultStart, long faultEnd, boolean dataLoss) {
    this.faultStart = faultStart;
    this.faultEnd = faultEnd;
    this.dataLoss = dataLoss;
  }

  /**
   * The result: every violation counted per check, the first few of each kept with details.
   *
   * @param kept the first violations of each check
   * @param counts how many violations each check found, {@code a} first
   */
  public record Result(List<Violation> kept, List<Integer> counts) {

    /** Copies both lists. */
    public Result {
      kept = List.copyOf(kept);
      counts = List.copyOf(counts);
    }

    /** Every violation found. */
    public int total() {
      return counts.stream().mapToInt(Integer::intValue).sum();
    }

    /** How many violations check {@code check} ({@code 'a'} to {@code 'g'}) found. */
    public int count(char check) {
      return counts.get(check - 'a');
    }
  }

  /**
   * Checks a history made with no fault.
   *
   * @param calls every call of the run but the final reads, in any order
   * @param finals each order's final get, recorded in the same history after everything else (an
   *     order only these reads touched is checked too)
   * @param orphans each order's orphans as read at the end
   */
  public static Result check(
      List<Call> calls, Map<String, Call> finals, Map<String, List<Orphan>> orphans) {
    return check(calls, finals, orphans, -1, -1, false, 0, 0);
  }

  /**
   * Checks a history.
   *
   * @param calls every call of the run but the final reads, in any order
   * @param finals each order's final get, recorded in the same history after everything else (an
   *     order only these reads touched is checked too)
   * @param orphans each order's orphans as read at the end
   * @param faultStart nanoTime the fault started, or -1 with no fault
   * @param faultEnd nanoTime the fault was over
   * @param dataLoss whether the fault lost the backend's data
   * @param recoveryBoundNanos how long the store may take to answer again after the fault
   * @param recoveredNanos how long it took, or -1 if it never did within the bound
   */
  public static Result check(
      List<Call> calls,
      Map<String, Call> finals,
      Map<String, List<Orphan>> orphans,
      long faultStart,
      long faultEnd,
      boolean dataLoss,
      long recoveryBoundNanos,
      long recoveredNanos) {
    HistoryCheck check = new HistoryCheck(faultStart, faultEnd, dataLoss);
    Map<String, List<Call>> byOrder = new HashMap<>();
    Map<String, List<Call>> byValue = new HashMap<>();
    Map<ClaimId, Call> granted = new HashMap<>();
    for (Call call : calls) {
      byOrder.computeIfAbsent(call.sessionId(), k -> new ArrayList<>()).add(call);
      if (call.value() != null) {
        byValue
            .computeIfAbsent(key(call.sessionId(), call.value()), k -> new ArrayList<>())
            .add(call);
      }
      if (call.answer() == Answer.CLAIMED) {
        granted.put(call.claimId(), call);
      }
      if (call.answer() == Answer.UNDOCUMENTED) {
        check.violation('g', "an undocumented exception escaped: %s", call.describe());
      }
      if (faultStart >= 0
          && !call.answer().succeeded()
          && call.startNanos() > faultEnd + recoveryBoundNanos) {
        check.violation(
            'f',
            "a call started %s ms after the fault was over still failed: %s",
            millis(call.startNanos() - faultEnd),
            call.describe());
      }
    }
    if (faultStart >= 0 && recoveredNanos < 0) {
      check.violation(
          'f',
          "no call succeeded within %s ms after the fault was over, and the store was not rebuilt",
          millis(recoveryBoundNanos));
    }
    for (String order : finals.keySet()) {
      byOrder.computeIfAbsent(order, k -> new ArrayList<>());
    }
    for (Map.Entry<String, List<Call>> entry : byOrder.entrySet()) {
      String order = entry.getKey();
      List<Call> history = entry.getValue();
      Call last = finals.get(order);
      List<Call> observations = new ArrayList<>();
      for (Call call : history) {
        if (call.record() != null
            || (call.operation() == Operation.GET && call.answer() == Answer.READ)) {
          observations.add(call);
        }
      }
      if (last != null) {
        observations.add(last);
      } else {
        check.violation('f', "order %s could not be read at the end of the run", order);
      }
      check.lostWrites(history, observations);
      check.attribution(order, history, observations, byValue, granted);
      check.fences(history, observations);
      if (last != null) {
        check.orphans(order, history, orphans.getOrDefault(order, List.of()), byValue);
      }
    }
    return new Result(check.violations, Arrays.stream(check.counts).boxed().toList());
  }

  /** (a) */
  private void lostWrites(List<Call> history, List<Call> observations) {
    for (Call write : history) {
      if ((write.answer() != Answer.WRITTEN && write.answer() != Answer.CLAIMED)
          || write.record() == null) {
        continue;
      }
      OrderRecord written = write.record();
      for (Call read : observations) {
        if (!write.precedes(read) || !sameSide(write, read)) {
          continue;
        }
        OrderRecord seen = read.record();
        String lost = null;
        if (seen == null) {
          lost = "the order is gone";
        } else if (seen.fence() < written.fence()) {
          lost = "the fence went back from " + written.fence() + " to " + seen.fence();
        } else if (seen.fence() == written.fence()) {
          if (write.operation().settles()) {
            if (seen.status() != written.status()
                || !Objects.equals(seen.settledBy(), written.settledBy())
                || !Objects.equals(seen.item(), written.item())
                || !Objects.equals(seen.lastError(), written.lastError())) {
              lost = "the settle is not what the order shows";
            }
          } else if (!Objects.equals(seen.claimId(), written.claimId())
              && !Objects.equals(seen.settledBy(), written.claimId())) {
            lost = "the claim " + written.claimId() + " is neither held nor settled";
          }
        }
        if (lost != null) {
          violation(
              'a',
              "a written answer was lost (%s): %s wrote %s, later %s read %s",
              lost,
              write.describe(),
              brief(written),
              read.describe(),
              brief(seen));
          break;
        }
      }
    }
  }

  /** (b) and (c) */
  private void attribution(
      String order,
      List<Call> history,
      List<Call> observations,
      Map<String, List<Call>> byValue,
      Map<ClaimId, Call> granted) {
    Set<String> seenValues = new HashSet<>();
    Set<ClaimId> seenClaims = new HashSet<>();
    boolean claimMayHaveLanded = false;
    boolean claimRefused = false;
    for (Call call : history) {
      if (call.operation() == Operation.CLAIM) {
        claimMayHaveLanded |=
            call.answer() == Answer.UNAVAILABLE_UNKNOWN || call.answer() == Answer.UNDOCUMENTED;
        claimRefused |= call.answer() == Answer.UNAVAILABLE_NOTHING_WRITTEN;
      }
      if (dataLoss
          && call.answer() == Answer.WRITTEN
          && side(call) == 1
          && granted.containsKey(call.claimId())
          && side(granted.get(call.claimId())) == 0) {
        violation(
            'b',
            "a token granted before the data loss settled the recreated order: %s (granted by %s)",
            call.describe(),
            granted.get(call.claimId()).describe());
      }
    }
    for (Call read : observations) {
      OrderRecord seen = read.record();
      if (seen == null) {
        continue;
      }
      String value =
          seen.status() == OrderStatus.PROVISIONED
              ? seen.item().providerOrderId()
              : seen.lastError();
      if (seen.status() != OrderStatus.PENDING && seenValues.add(value)) {
        List<Call> senders =
            value == null ? List.of() : byValue.getOrDefault(key(order, value), List.of());
        Call writer = writer(senders, seen.settledBy());
        if (writer == null) {
          violation('b', "order %s shows %s, which no call sent", order, brief(seen));
        } else if (writer.answer() == Answer.SUPERSEDED) {
          violation(
              'b',
              "a superseded write landed: %s, yet %s read %s",
              writer.describe(),
              read.describe(),
              brief(seen));
        } else if (writer.answer() == Answer.UNAVAILABLE_NOTHING_WRITTEN) {
          violation(
              'c',
              "a call said nothing was written, yet it landed: %s, then %s read %s",
              writer.describe(),
              read.describe(),
              brief(seen));
        } else if (!Objects.equals(seen.settledBy(), writer.claimId())) {
          violation(
              'b',
              "order %s is settled by %s with what %s sent",
              order,
              seen.settledBy(),
              writer.describe());
        }
      }
      ClaimId claim = seen.claimId() != null ? seen.claimId() : seen.settledBy();
      if (claim != null && !granted.containsKey(claim) && seenClaims.add(claim)) {
        if (!claimMayHaveLanded) {
          violation(
              claimRefused ? 'c' : 'a',
              "order %s carries the claim %s that no call was granted%s: %s read %s",
              order,
              claim,
              claimRefused ? " (a claim said nothing was written)" : "",
              read.describe(),
              brief(seen));
        }
      }
    }
  }

  /** (d) */
  private void fences(List<Call> history, List<Call> observations) {
    Map<String, Call> byFence = new HashMap<>();
    for (Call call : history) {
      if (call.answer() != Answer.CLAIMED) {
        continue;
      }
      OrderRecord record = call.record();
      if (record.status() != OrderStatus.PENDING
          || !call.claimId().equals(record.claimId())
          || call.claimId().fence() != record.fence()) {
        violation(
            'd',
            "a Claimed answer is not a PENDING record holding its claim id at its fence: %s"
                + " carried %s",
            call.describe(),
            brief(record));
      }
      Call other = byFence.putIfAbsent(side(call) + ":" + call.claimId().fence(), call);
      if (other != null && side(call) >= 0) {
        violation(
            'd',
            "two claims were granted fence %s: %s and %s",
            call.claimId().fence(),
            other.describe(),
            call.describe());
      }
    }
    for (Call first : observations) {
      for (Call second : observations) {
        if (first.record() != null
            && second.record() != null
            && first.precedes(second)
            && sameSide(first, second)
            && second.record().fence() < first.record().fence()) {
          violation(
              'd',
              "the fence went down from %s (%s) to %s (%s)",
              first.record().fence(),
              first.describe(),
              second.record().fence(),
              second.describe());
          return;
        }
      }
    }
  }

  /** (e), and (c) for a complete that said nothing was written but left an orphan */
  private void orphans(
      String order, List<Call> history, List<Orphan> found, Map<String, List<Call>> byValue) {
    for (Call call : history) {
      if (call.operation() != Operation.COMPLETE || (dataLoss && side(call) != 1)) {
        continue;
      }
      long copies = found.stream().filter(call::left).count();
      if (call.answer() == Answer.SUPERSEDED && copies != 1) {
        violation(
            'e',
            "a superseded complete is in orphans %s times, not once: %s",
            copies,
            call.describe());
      } else if (copies > 1) {
        violation('e', "a complete is in orphans %s times: %s", copies, call.describe());
      }
    }
    for (Orphan orphan : found) {
      List<Call> senders =
          byValue.getOrDefault(key(order, orphan.item().providerOrderId()), List.of());
      Call written = first(senders, Answer.WRITTEN);
      Call refused = first(senders, Answer.UNAVAILABLE_NOTHING_WRITTEN);
      if (senders.isEmpty()) {
        if (!dataLoss) {
          violation('e', "order %s has an orphan no call sent: %s", order, orphan);
        }
      } else if (written != null) {
        violation('e', "a written complete is also an orphan: %s", written.describe());
      } else if (refused != null) {
        violation(
            'c', "a complete said nothing was written, yet left an orphan: %s", refused.describe());
      } else if (senders.stream().noneMatch(call -> sent(call, orphan))) {
        violation(
            'e',
            "order %s has an orphan no complete sent as it is (its order, claim id or item differ):"
                + " %s; sent: %s",
            order,
            orphan,
            senders.get(0).describe());
      }
    }
  }

  private static String key(String order, String value) {
    return order + "\u0000" + value;
  }

  /**
   * Of the calls that sent a settled record's item or error, the one that wrote it: one by the
   * record's {@code settledBy} not answered Superseded or "nothing written", else one by that
   * {@code settledBy}, else the last; {@code null} if none sent it.
   */
  private static Call writer(List<Call> senders, ClaimId settledBy) {
    Call bySettler = null;
    for (Call call : senders) {
      if (Objects.equals(call.claimId(), settledBy)) {
        if (call.answer() != Answer.SUPERSEDED
            && call.answer() != Answer.UNAVAILABLE_NOTHING_WRITTEN) {
          return call;
        }
        if (bySettler == null) {
          bySettler = call;
        }
      }
    }
    if (bySettler != null || senders.isEmpty()) {
      return bySettler;
    }
    return senders.get(senders.size() - 1);
  }

  private static Call first(List<Call> calls, Answer answer) {
    return calls.stream().filter(call -> call.answer() == answer).findFirst().orElse(null);
  }

  /** Whether {@code orphan} is exactly what the complete {@code call} sent. */
  private static boolean sent(Call call, Orphan orphan) {
    return call.left(orphan)
        && orphan.sessionId().equals(call.sessionId())
        && orphan.item().equals(call.request().item());
  }

  /** Which side of a data-losing fault a call is on: 0 before, 1 after, -1 during; else 0. */
  private int side(Call call) {
    if (!dataLoss) {
      return 0;
    }
    if (call.endNanos() < faultStart) {
      return 0;
    }
    return call.startNanos() > faultEnd ? 1 : -1;
  }

  private boolean sameSide(Call first, Call second) {
    int side = side(first);
    return side >= 0 && side == side(second);
  }

  /**
   * Counts a violation of {@code check}, keeping its message: {@code format} with {@code args}, as
   * String.format makes it (what a call or a store said is always an argument, never the format).
   */
  private void violation(char check, String format, Object... args) {
    String message = String.format(format, args);
    counts[check - 'a']++;
    long ofThisCheck = violations.stream().filter(v -> v.check() == check).count();
    if (ofThisCheck < MAX_KEPT) {
      violations.add(new Violation(check, message));
    }
  }

  private static String brief(OrderRecord record) {
    if (record == null) {
      return "no order";
    }
    return record.status()
        + " fence "
        + record.fence()
        + (record.claimId() == null ? "" : " claim " + record.claimId())
        + (record.settledBy() == null ? "" : " settledBy " + record.settledBy())
        + (record.item() == null ? "" : " item " + record.item().providerOrderId())
        + (record.lastError() == null ? "" : " error " + record.lastError());
  }

  private static long millis(long nanos) {
    return nanos / 1_000_000;
  }
}
