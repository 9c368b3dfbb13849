package org.fencekit.tck;

import org.fencekit.store.OrderStore;
import org.junit.jupiter.api.Assumptions;

/**
 * The TCK over a store whose server is absent: {@code newStore} skips by an assumption, as the
 * server-backed tests do. Run only through {@link OrderStoreTckSelfTest}'s launcher.
 */
public class UnreachableStoreTck extends OrderStoreTck {

  @Override
  protected OrderStore newStore(TestClock clock) {
    Assumptions.abort("no server configured: set FENCEKIT_EXAMPLE_URL to run this store's TCK");
    throw new AssertionError("unreachable");
  }
}
