package org.fencekit.history;

import java.time.Duration;
import java.util.Objects;
import org.fencekit.store.ClaimId;
import org.fencekit.store.Item;
import org.fencekit.store.OrderSnapshot;
import org.fencekit.store.OrderStore;

/**
 * What one store call asks: the operation and its arguments, those it does not take {@code null}.
 * Made with the factories, one per {@link OrderStore} method.
 *
 * @param operation which call
 * @param sessionId the order
 * @param claimId the claim id presented (complete, fail, extend)
 * @param snapshot a claim's snapshot
 * @param lease a claim's or an extend's lease
 * @param item a complete's item
 * @param error a fail's error
 */
public record Request(
    Operation operation,
    String sessionId,
    ClaimId claimId,
    OrderSnapshot snapshot,
    Duration lease,
    Item item,
    String error) {

  /** Checks that the operation and the order are named. */
  public Request {
    Objects.requireNonNull(operation, "operation");
    Objects.requireNonNull(sessionId, "sessionId");
  }

  /** {@code claim(snapshot, lease)}. */
  public static Request claim(OrderSnapshot snapshot, Duration lease) {
    return new Request(Operation.CLAIM, snapshot.sessionId(), null, snapshot, lease, null, null);
  }

  /** {@code complete(sessionId, claimId, item)}. */
  public static Request complete(String sessionId, ClaimId claimId, Item item) {
    return new Request(Operation.COMPLETE, sessionId, claimId, null, null, item, null);
  }

  /** {@code fail(sessionId, claimId, error)}. */
  public static Request fail(String sessionId, ClaimId claimId, String error) {
    return new Request(Operation.FAIL, sessionId, claimId, null, null, null, error);
  }

  /** {@code extend(sessionId, claimId, lease)}. */
  public static Request extend(String sessionId, ClaimId claimId, Duration lease) {
    return new Request(Operation.EXTEND, sessionId, claimId, null, lease, null, null);
  }

  /** {@code get(sessionId)}. */
  public static Request get(String sessionId) {
    return new Request(Operation.GET, sessionId, null, null, null, null, null);
  }

  /** {@code orphans(sessionId)}. */
  public static Request orphans(String sessionId) {
    return new Request(Operation.ORPHANS, sessionId, null, null, null, null, null);
  }

  /** Sends this request to {@code store} and returns what it answered. */
  public Object sendTo(OrderStore store) {
    return switch (operation) {
      case CLAIM -> store.claim(snapshot, lease);
      case COMPLETE -> store.complete(sessionId, claimId, item);
      case FAIL -> store.fail(sessionId, claimId, error);
      case EXTEND -> store.extend(sessionId, claimId, lease);
      case GET -> store.get(sessionId);
      case ORPHANS -> store.orphans(sessionId);
    };
  }
}
