package org.fencekit.store.spi;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Set;
import org.fencekit.store.ClaimId;
import org.fencekit.store.ClaimResult;
import org.fencekit.store.Mismatch;
import org.fencekit.store.MismatchId;
import org.fencekit.store.OrderField;
import org.fencekit.store.OrderRecord;
import org.fencekit.store.OrderStatus;
import org.fencekit.store.Orphan;
import org.fencekit.store.UnknownOrderException;
import org.fencekit.store.WriteResult;

/**
 * The contract's state machine as one pure function per operation: given the order as it is (or
 * none), the time and a validated request, it returns the result and the record to write. It
 * performs no I/O and reads no clock; a store reads the record under its lock, decides here, and
 * writes what it is told in the same atomic step. fencekit's stores decide with it (through {@link
 * FencedOrderStore}) or in scripts that mirror it ({@linkplain org.fencekit.store.spi which}), and
 * the TCK checks every store's histories against it.
 */
public final class OrderStateMachine {

  private OrderStateMachine() {}

  /**
   * The clock's reading at the millisecond precision all lease arithmetic uses. Calls in the same
   * millisecond share one {@link Instant} (a value, so sharing is unobservable): a store decides
   * about a thousand times per millisecond, and each order keeps its decision's time.
   */
  public static Instant now(Clock clock) {
    long millis = nowMillis(clock);
    Instant last = lastNow;
    if (last.toEpochMilli() == millis) {
      return last;
    }
    Instant now = Instant.ofEpochMilli(millis);
    lastNow = now;
    return now;
  }

  /** {@link #now} in epoch milliseconds, for a store that keeps instants as numbers. */
  public static long nowMillis(Clock clock) {
    return clock.millis();
  }

  /** The last {@link #now}, from any clock and thread: read and replaced, never locked. */
  private static volatile Instant lastNow = Instant.EPOCH;

  /**
   * When a lease granted or extended at {@code now} runs out: {@code now} plus the lease's whole
   * milliseconds, the one lease arithmetic of every store.
   */
  public static Instant leaseEnd(Instant now, Duration lease) {
    return Instant.ofEpochMilli(leaseEndMillis(now.toEpochMilli(), lease));
  }

  /** {@link #leaseEnd} in epoch milliseconds, for a store that keeps instants as numbers. */
  public static long leaseEndMillis(long nowMillis, Duration lease) {
    return nowMillis + lease.toMillis();
  }

  /**
   * A claim's outcome.
   *
   * @param result what the caller is told
   * @param next the record to write (insert if there was none, else update), or {@code null} when
   *     nothing changes
   * @param mismatch the mismatch to record (the claim offered another order), or {@code null}
   */
  public record ClaimDecision(ClaimResult result, OrderRecord next, Mismatch mismatch) {

    /** A decision that records no mismatch. */
    public ClaimDecision(ClaimResult result, OrderRecord next) {
      this(result, next, null);
    }
  }

  /**
   * A write's outcome.
   *
   * @param result what the caller is told
   * @param next the record to write, or {@code null} when nothing changes
   * @param orphan an orphan to record (unless one with the same claimId and providerOrderId is
   *     recorded already), or {@code null}
   */
  public record WriteDecision(WriteResult result, OrderRecord next, Orphan orphan) {}

  /**
   * Decides a claim. On an existing order it first compares the snapshots: if the offered one
   * differs in a field of {@link OrderField}, whatever the order's status, the answer is {@link
   * ClaimResult.Mismatch}, nothing changes, and the mismatch is to be recorded (identified by
   * {@code nonce}). Otherwise the stored snapshot is kept (the first one), even if the e-mail or
   * the currency's case differ.
   *
   * @param current the order as stored, or {@code null} if there is none
   * @param request the validated claim
   * @param now the time, at millisecond precision
   * @param nonce the nonce for the new token, should the claim be granted ({@link
   *     ClaimId#newNonce()})
   */
  public static ClaimDecision claim(
      OrderRecord current, ClaimRequest request, Instant now, String nonce) {
    Objects.requireNonNull(request, "request");
    Objects.requireNonNull(now, "now");
    Instant expires = leaseEnd(now, request.lease());
    if (current == null) {
      ClaimId claimId = new ClaimId(1, nonce);
      OrderRecord created =
          new OrderRecord(
              request.snapshot(),
              OrderStatus.PENDING,
              null,
              null,
              claimId,
              now,
              expires,
              1,
              null,
              now);
      return new ClaimDecision(new ClaimResult.Claimed(claimId, created), created);
    }
    requireSameOrder(current, request.sessionId());
    Set<OrderField> differing = OrderField.differing(current.snapshot(), request.snapshot());
    if (!differing.isEmpty()) {
      Mismatch mismatch =
          new Mismatch(
              new MismatchId(current.sessionId(), nonce),
              now,
              current.snapshot(),
              request.snapshot());
      return new ClaimDecision(new ClaimResult.Mismatch(current, differing), null, mismatch);
    }
    if (current.status() == OrderStatus.PROVISIONED) {
      return new ClaimDecision(new ClaimResult.Provisioned(current), null);
    }
    if (current.leaseLiveAt(now)) {
      return new ClaimDecision(new ClaimResult.InFlight(current), null);
    }
    ClaimId claimId = new ClaimId(current.fence() + 1, nonce);
    OrderRecord claimed =
        new OrderRecord(
            current.snapshot(),
            OrderStatus.PENDING,
            null,
            current.lastError(),
            claimId,
            now,
            expires,
            claimId.fence(),
            current.settledBy(),
            now,
            current.failures(),
            current.failedSince());
    return new ClaimDecision(new ClaimResult.Claimed(claimId, claimed), claimed);
  }

  /**
   * Decides a complete, fail or extend on an existing order.
   *
   * @param current the order as stored; a store throws {@link UnknownOrderException} itself when
   *     there is none
   * @param request the validated write
   * @param now the time, at millisecond precision
   */
  public static WriteDecision write(OrderRecord current, WriteRequest request, Instant now) {
    Objects.requireNonNull(current, "current");
    Objects.requireNonNull(now, "now");
    requireSameOrder(current, request.sessionId());
    if (isReplay(current, request)) {
      return new WriteDecision(new WriteResult.Written(current), null, null);
    }
    if (!request.claimId().equals(current.claimId())) {
      Orphan orphan =
          request instanceof WriteRequest.Complete complete
              ? new Orphan(current.sessionId(), complete.claimId(), complete.item(), now)
              : null;
      return new WriteDecision(new WriteResult.Superseded(current), null, orphan);
    }
    OrderRecord next;
    if (request instanceof WriteRequest.Complete complete) {
      next =
          new OrderRecord(
              current.snapshot(),
              OrderStatus.PROVISIONED,
              complete.item(),
              current.lastError(),
              null,
              null,
              null,
              current.fence(),
              complete.claimId(),
              now,
              current.failures(),
              current.failedSince());
    } else if (request instanceof WriteRequest.Fail fail) {
      next =
          new OrderRecord(
              current.snapshot(),
              OrderStatus.FAILED,
              null,
              fail.error(),
              null,
              null,
              null,
              current.fence(),
              fail.claimId(),
              now,
              current.failures() + 1,
              current.failedSince() == null ? now : current.failedSince());
    } else {
      WriteRequest.Extend extend = (WriteRequest.Extend) request;
      next =
          new OrderRecord(
              current.snapshot(),
              current.status(),
              current.item(),
              current.lastError(),
              current.claimId(),
              current.claimedAt(),
              leaseEnd(now, extend.lease()),
              current.fence(),
              current.settledBy(),
              now,
              current.failures(),
              current.failedSince());
    }
    return new WriteDecision(new WriteResult.Written(next), next, null);
  }

  /**
   * Whether the request repeats the settle that settled the order last, and the order still shows
   * exactly what that settle wrote: then it is answered {@code Written} again, unchanged.
   */
  private static boolean isReplay(OrderRecord current, WriteRequest request) {
    if (!request.claimId().equals(current.settledBy())) {
      return false;
    }
    if (request instanceof WriteRequest.Complete complete) {
      return current.status() == OrderStatus.PROVISIONED && complete.item().equals(current.item());
    }
    if (request instanceof WriteRequest.Fail fail) {
      return current.status() == OrderStatus.FAILED && fail.error().equals(current.lastError());
    }
    return false; // an extend is not a settle: there is nothing to replay
  }

  private static void requireSameOrder(OrderRecord current, String sessionId) {
    if (!current.sessionId().equals(sessionId)) {
      throw new IllegalArgumentException(
          String.format(
              "the stored record is order '%s' but the request is for '%s': the backend returned"
                  + " the wrong row",
              current.sessionId(), sessionId));
    }
  }
}
