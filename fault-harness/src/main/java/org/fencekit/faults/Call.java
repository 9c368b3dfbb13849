package org.fencekit.faults;

import org.fencekit.history.Answer;
import org.fencekit.store.ClaimId;
import org.fencekit.store.OrderRecord;

/**
 * One recorded call and its answer.
 *
 * @param seq the call's number in the run, in the order calls started
 * @param operation "claim", "complete", "fail", "extend" or "get"
 * @param sessionId the order
 * @param claimId the token presented (for claim: the one granted, if any)
 * @param value the item's providerOrderId of a complete, the error of a fail, else {@code null};
 *     unique in the run, so a record can be traced to the one call that wrote it
 * @param startNanos {@link System#nanoTime()} when the call started
 * @param endNanos {@link System#nanoTime()} when it returned
 * @param answer what it answered, by kind
 * @param record the record the answer carried (or {@code get} returned), or {@code null}
 * @param failure the exception it threw, or {@code null}
 */
public record Call(
    long seq,
    String operation,
    String sessionId,
    ClaimId claimId,
    String value,
    long startNanos,
    long endNanos,
    Answer answer,
    OrderRecord record,
    Throwable failure) {

  /** Whether this call ended before {@code other} started (real-time order). */
  boolean before(Call other) {
    return endNanos < other.startNanos;
  }

  /** Whether this call settles (complete or fail). */
  boolean settles() {
    return operation.equals("complete") || operation.equals("fail");
  }

  /** The call in one line, for a violation's message. */
  String describe() {
    return "#"
        + seq
        + " "
        + operation
        + "("
        + sessionId
        + (claimId == null ? "" : ", " + claimId)
        + (value == null ? "" : ", " + value)
        + ") -> "
        + answer.label()
        + (failure == null
            ? ""
            : " [" + failure.getClass().getSimpleName() + ": " + failure.getMessage() + "]");
  }
}
