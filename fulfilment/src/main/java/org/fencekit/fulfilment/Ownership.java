package org.fencekit.fulfilment;

import org.fencekit.store.ClaimId;

/**
 * Whether the attempt a provider call runs for still owns its order. A long call may check it
 * between steps and stop early: once {@link #owned()} is false another attempt holds the order, and
 * anything this call buys will be recorded as an orphan.
 */
public interface Ownership {

  /** The token of the attempt's claim. */
  ClaimId claimId();

  /**
   * False once a heartbeat learned that another attempt took the order over (or the order is gone);
   * true before. It never turns true again.
   */
  boolean owned();
}
