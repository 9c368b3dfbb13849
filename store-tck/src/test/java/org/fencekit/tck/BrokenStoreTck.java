package org.fencekit.tck;

import org.fencekit.store.OrderStore;

/**
 * The TCK over {@link BrokenStore} with the break {@link OrderStoreTckSelfTest} sets, run only
 * through that test's launcher (its name does not match Surefire's patterns). Supports a peer.
 */
public class BrokenStoreTck extends OrderStoreTck {

  /** The break of the next launch; null for the correct store. */
  static volatile BrokenStore.Break breakage;

  private BrokenStore.Data data;

  @Override
  protected OrderStore newStore(TestClock clock) {
    data = new BrokenStore.Data();
    return new BrokenStore(data, clock, breakage);
  }

  @Override
  protected OrderStore newPeerStore(TestClock clock) {
    return new BrokenStore(data, clock, breakage);
  }
}
