package org.fencekit.tck;

import org.fencekit.store.OrderStore;

/**
 * The whole TCK against the correct {@link BrokenStore} (no break) and a peer over the same data,
 * run directly by Surefire: an implementation written from the contract independently of
 * OrderStateMachine must pass every rule, including the cross-instance ones.
 */
class CorrectStoreTckTest extends OrderStoreTck {

  private BrokenStore.Data data;

  @Override
  protected OrderStore newStore(TestClock clock) {
    data = new BrokenStore.Data();
    return new BrokenStore(data, clock, null);
  }

  @Override
  protected OrderStore newPeerStore(TestClock clock) {
    return new BrokenStore(data, clock, null);
  }
}
