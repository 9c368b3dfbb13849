package org.fencekit.store.spi;

import java.time.Duration;
import org.fencekit.store.OrderSnapshot;

/**
 * A validated claim: the snapshot (valid by construction) and a lease within bounds.
 *
 * @param snapshot what the Checkout session says
 * @param lease at least 1 ms, at most 24 h
 */
public record ClaimRequest(OrderSnapshot snapshot, Duration lease) {

  /** Validates both arguments. */
  public ClaimRequest {
    Validate.notNull("snapshot", snapshot);
    Validate.lease(lease);
  }

  /** The order's key. */
  public String sessionId() {
    return snapshot.sessionId();
  }
}
