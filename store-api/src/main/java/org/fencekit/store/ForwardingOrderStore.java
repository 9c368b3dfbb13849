package org.fencekit.store;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * An {@link OrderStore} that hands every call to another one: extend it and override what you want
 * to observe or change (count calls, inject a failure in a test, time each call), leaving the rest
 * as it is.
 */
public abstract class ForwardingOrderStore implements OrderStore {

  private final OrderStore delegate;

  /**
   * @param delegate the store every call goes to
   */
  protected ForwardingOrderStore(OrderStore delegate) {
    this.delegate = Objects.requireNonNull(delegate, "delegate");
  }

  /** The store every call goes to. */
  protected final OrderStore delegate() {
    return delegate;
  }

  @Override
  public ClaimResult claim(OrderSnapshot snapshot, Duration lease) {
    return delegate.claim(snapshot, lease);
  }

  @Override
  public WriteResult complete(String sessionId, ClaimId claimId, Item item) {
    return delegate.complete(sessionId, claimId, item);
  }

  @Override
  public WriteResult fail(String sessionId, ClaimId claimId, String error) {
    return delegate.fail(sessionId, claimId, error);
  }

  @Override
  public WriteResult extend(String sessionId, ClaimId claimId, Duration lease) {
    return delegate.extend(sessionId, claimId, lease);
  }

  @Override
  public Optional<OrderRecord> get(String sessionId) {
    return delegate.get(sessionId);
  }

  @Override
  public List<Orphan> orphans(String sessionId) {
    return delegate.orphans(sessionId);
  }

  /** Closes the store every call goes to. */
  @Override
  public void close() {
    delegate.close();
  }

  @Override
  public String toString() {
    return delegate.toString();
  }
}
