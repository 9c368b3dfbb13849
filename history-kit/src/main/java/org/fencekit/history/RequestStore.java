package org.fencekit.history;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.fencekit.store.ClaimId;
import org.fencekit.store.ClaimResult;
import org.fencekit.store.Item;
import org.fencekit.store.OrderRecord;
import org.fencekit.store.OrderSnapshot;
import org.fencekit.store.OrderStore;
import org.fencekit.store.Orphan;
import org.fencekit.store.WriteResult;

/**
 * An {@link OrderStore} that turns each call into a {@link Request} and answers what {@link #send}
 * returns: a layer between a caller and a store (a recorder, a network that fails) written once for
 * all six calls.
 */
public abstract class RequestStore implements OrderStore {

  /** For subclasses. */
  protected RequestStore() {}

  /**
   * Handles one call: returns its answer ({@link ClaimResult}, {@link WriteResult}, an {@code
   * Optional} of the record, the list of orphans) or throws what the store threw.
   */
  protected abstract Object send(Request request);

  @Override
  public ClaimResult claim(OrderSnapshot snapshot, Duration lease) {
    return (ClaimResult) send(Request.claim(snapshot, lease));
  }

  @Override
  public WriteResult complete(String sessionId, ClaimId claimId, Item item) {
    return (WriteResult) send(Request.complete(sessionId, claimId, item));
  }

  @Override
  public WriteResult fail(String sessionId, ClaimId claimId, String error) {
    return (WriteResult) send(Request.fail(sessionId, claimId, error));
  }

  @Override
  public WriteResult extend(String sessionId, ClaimId claimId, Duration lease) {
    return (WriteResult) send(Request.extend(sessionId, claimId, lease));
  }

  @Override
  @SuppressWarnings("unchecked")
  public Optional<OrderRecord> get(String sessionId) {
    return (Optional<OrderRecord>) send(Request.get(sessionId));
  }

  @Override
  @SuppressWarnings("unchecked")
  public List<Orphan> orphans(String sessionId) {
    return (List<Orphan>) send(Request.orphans(sessionId));
  }
}
