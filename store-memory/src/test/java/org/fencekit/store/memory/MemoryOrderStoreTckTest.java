package org.fencekit.store.memory;

import org.fencekit.store.OrderStore;
import org.fencekit.tck.OrderStoreTck;
import org.fencekit.tck.TestClock;

/**
 * Runs the TCK against the in-memory reference store. The memory store cannot share its data with a
 * second instance, so {@code newPeerStore} keeps its default and the cross-instance tests are
 * skipped.
 */
class MemoryOrderStoreTckTest extends OrderStoreTck {

  @Override
  protected OrderStore newStore(TestClock clock) {
    return new MemoryOrderStore(clock);
  }
}
