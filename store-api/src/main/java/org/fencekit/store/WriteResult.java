package org.fencekit.store;

import java.util.Objects;

/**
 * What a settling write (complete, fail, extend) did. A rejected write is a value, never an
 * exception, so the caller has to look at it (Java 21 pattern switch shown):
 *
 * <pre>{@code
 * switch (store.complete(sessionId, claimId, item)) {
 *   case WriteResult.Written w -> show(w.record().item());
 *   case WriteResult.Superseded s -> reconcile(s.current(), item);   // an orphaned purchase: real money
 * }
 * }</pre>
 */
public sealed interface WriteResult {

  /** The order as the store holds it after the call. */
  OrderRecord record();

  /**
   * The write landed (or had landed already: a replay of the settle that settled the order).
   *
   * @param record the order after the write
   */
  record Written(OrderRecord record) implements WriteResult {
    /** Checks the record is present. */
    public Written {
      Objects.requireNonNull(record, "record");
    }
  }

  /**
   * The token presented is not the order's current claim: nothing changed. A superseded complete
   * was recorded as an {@link Orphan}.
   *
   * @param current the order as it is, untouched
   */
  record Superseded(OrderRecord current) implements WriteResult {
    /** Checks the record is present. */
    public Superseded {
      Objects.requireNonNull(current, "current");
    }

    @Override
    public OrderRecord record() {
      return current;
    }
  }
}
