package org.fencekit.bench;

import java.time.Clock;
import java.util.List;
import org.fencekit.store.OrderStore;

/**
 * A set of scenarios the main job replays against every available store, shown as one table (a row
 * per scenario, a column per store) with a legend. The main job runs every replay in {@link
 * Main#REPLAYS}; a new set of scenarios is one more entry there.
 *
 * @param title the table's heading
 * @param legend what "held" and "LANDED" mean for these scenarios, printed under the table
 * @param scenarios runs every scenario against one store
 */
record Replay(String title, String legend, Scenarios scenarios) {

  /** Runs a replay's scenarios against one kind of store. */
  @FunctionalInterface
  interface Scenarios {
    /**
     * Every scenario, in table order, on stores opened by {@code stores} (one for all, or one per
     * scenario; the replay closes what it opens).
     *
     * @throws Exception if the store failed (not if it answered wrongly: that is an outcome)
     */
    List<Outcome> run(Stores stores) throws Exception;
  }

  /** Opens a store of the kind a table column is for. */
  @FunctionalInterface
  interface Stores {
    /**
     * A new store whose leases run on {@code clock}.
     *
     * @throws Exception if it cannot be opened
     */
    OrderStore open(Clock clock) throws Exception;
  }

  /**
   * What one scenario did on one store.
   *
   * @param scenario the scenario, in a few words (the table's row)
   * @param held whether the store did what the contract says
   * @param detail what the store answered, for the lines under the table
   */
  record Outcome(String scenario, boolean held, String detail) {}
}
