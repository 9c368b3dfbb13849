package org.fencekit.history;

import java.time.Instant;
import java.util.Optional;
import org.fencekit.store.ClaimId;
import org.fencekit.store.ClaimResult;
import org.fencekit.store.OrderRecord;
import org.fencekit.store.Orphan;
import org.fencekit.store.StoreUnavailableException;
import org.fencekit.store.UnknownOrderException;
import org.fencekit.store.WriteResult;

/**
 * One recorded store call: who made it, what it asked, when, and what it answered or threw.
 *
 * @param invoked the history's sequence number taken as the call started
 * @param responded the sequence number taken as it returned; a call {@link #precedes} another if it
 *     responded before the other was invoked (real-time order, on one counter for all threads)
 * @param startNanos {@link System#nanoTime()} as it started
 * @param endNanos {@link System#nanoTime()} as it returned
 * @param caller who called: a thread, a handler instance, a process
 * @param request what it asked
 * @param at the history's clock as the call started
 * @param result what it returned ({@link ClaimResult}, {@link WriteResult}, an {@code Optional} of
 *     the record, the list of orphans), or {@code null} if it threw
 * @param failure what it threw, or {@code null}
 */
public record Call(
    long invoked,
    long responded,
    long startNanos,
    long endNanos,
    String caller,
    Request request,
    Instant at,
    Object result,
    Throwable failure) {

  /** Which call. */
  public Operation operation() {
    return request.operation();
  }

  /** The order. */
  public String sessionId() {
    return request.sessionId();
  }

  /** The claim id presented, or for a claim the one it was granted ({@code null} if none). */
  public ClaimId claimId() {
    return result instanceof ClaimResult.Claimed claimed ? claimed.claimId() : request.claimId();
  }

  /**
   * What the call sent that a record shows: a complete's item's providerOrderId, a fail's error,
   * else {@code null}. In a history that sends each item and error once (the fault harness's), it
   * traces a record to the one call that wrote it.
   */
  public String value() {
    return request.item() != null ? request.item().providerOrderId() : request.error();
  }

  /**
   * Whether {@code orphan} is the one this call left: it is a complete, and the orphan carries its
   * claim id and its item's providerOrderId (a store keeps one orphan per such pair).
   */
  public boolean left(Orphan orphan) {
    return operation() == Operation.COMPLETE
        && orphan.claimId().equals(request.claimId())
        && orphan.item().providerOrderId().equals(request.item().providerOrderId());
  }

  /** What the call returned, or what it threw, thrown again: for a recorder between two layers. */
  public Object resultOrThrow() {
    if (failure instanceof RuntimeException e) {
      throw e;
    }
    if (failure instanceof Error e) {
      throw e;
    }
    return result;
  }

  /** Whether this call returned before {@code other} was invoked. */
  public boolean precedes(Call other) {
    return responded < other.invoked;
  }

  /** What it answered, by kind. */
  public Answer answer() {
    if (failure instanceof StoreUnavailableException unavailable) {
      return unavailable.outcomeUnknown()
          ? Answer.UNAVAILABLE_UNKNOWN
          : Answer.UNAVAILABLE_NOTHING_WRITTEN;
    }
    if (failure instanceof UnknownOrderException) {
      return Answer.UNKNOWN_ORDER;
    }
    if (failure != null) {
      return Answer.UNDOCUMENTED;
    }
    if (result instanceof ClaimResult.Claimed) {
      return Answer.CLAIMED;
    }
    if (result instanceof ClaimResult.Provisioned) {
      return Answer.PROVISIONED;
    }
    if (result instanceof ClaimResult.InFlight) {
      return Answer.IN_FLIGHT;
    }
    if (result instanceof ClaimResult.Mismatch) {
      return Answer.MISMATCH;
    }
    if (result instanceof WriteResult.Written) {
      return Answer.WRITTEN;
    }
    if (result instanceof WriteResult.Superseded) {
      return Answer.SUPERSEDED;
    }
    return operation() == Operation.GET || operation() == Operation.ORPHANS
        ? Answer.READ
        : Answer.UNDOCUMENTED;
  }

  /**
   * The record the answer carried: a claim's or a write's record (for Superseded, the order as it
   * now is), or what {@code get} read; {@code null} for anything else.
   */
  public OrderRecord record() {
    if (result instanceof ClaimResult claim) {
      return claim.record();
    }
    if (result instanceof WriteResult write) {
      return write.record();
    }
    if (result instanceof Optional<?> read && read.orElse(null) instanceof OrderRecord record) {
      return record;
    }
    return null;
  }

  /** Whether the store may have written while the caller was told it failed. */
  public boolean outcomeUnknown() {
    return failure instanceof StoreUnavailableException unavailable && unavailable.outcomeUnknown();
  }

  /** The call in one line, for a violation's message. */
  public String describe() {
    String value = value();
    String call = "#" + invoked + " " + caller + " " + operation().label() + "(" + sessionId();
    String arguments =
        (claimId() == null ? "" : ", " + claimId()) + (value == null ? "" : ", " + value);
    String threw =
        failure == null
            ? ""
            : " [" + failure.getClass().getSimpleName() + ": " + failure.getMessage() + "]";
    return call + arguments + ") -> " + answer().label() + threw;
  }
}
