package org.fencekit.tck;

import org.fencekit.store.OrderStore;

/**
 * The TCK over a correct {@link BrokenStore} without a peer, run only through {@link
 * OrderStoreTckSelfTest}'s launcher, to check the cross-instance tests are skipped, not failed, and
 * say how to enable them.
 */
public class PeerlessStoreTck extends OrderStoreTck {

  @Override
  protected OrderStore newStore(TestClock clock) {
    return new BrokenStore(new BrokenStore.Data(), clock, null);
  }
}
