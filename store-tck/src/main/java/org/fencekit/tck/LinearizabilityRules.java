package org.fencekit.tck;

import java.util.List;
import org.fencekit.store.OrderStore;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Randomized concurrent histories, each checked against the reference state machine for a
 * sequential order that explains every answer. Ids start with {@code linearizability_}. Part of
 * {@link OrderStoreTck}.
 */
public abstract class LinearizabilityRules extends TckFixture {

  /** For the nested class of {@link OrderStoreTck} that runs this group. */
  LinearizabilityRules() {}

  /**
   * Randomized concurrent histories (threads run calls on a few orders in rounds, the clock
   * advancing between rounds) are each checked, per order, for a sequential order that respects
   * real time and whose replay through the reference state machine ({@link
   * org.fencekit.store.spi.OrderStateMachine}) gives exactly the answers the store gave, ending in
   * the state get and orphans report.
   *
   * <p>If this fails, check that each operation reads, decides and writes in one atomic step, and
   * that answers report the state that step wrote. The message prints the seed and the history of
   * the order that has no valid sequential order.
   */
  @Test
  @DisplayName("concurrent histories are linearizable against the reference state machine")
  void linearizability_oneInstance() {
    new Linearizability(List.of(store()), clock, suite.seed(), suite.linearizabilityHistories())
        .runAndCheck();
  }

  /**
   * As the single-instance check, with half the threads calling through the peer instance.
   *
   * <p>If this fails, check that the atomic step is enforced by the database across connections and
   * instances.
   */
  @Test
  @DisplayName("concurrent histories across two instances are linearizable")
  void linearizability_twoInstances() throws Exception {
    OrderStore other = peer();
    new Linearizability(
            List.of(store(), other), clock, suite.seed(), suite.linearizabilityHistories())
        .runAndCheck();
  }
}
