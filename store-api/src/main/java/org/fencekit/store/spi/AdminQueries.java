package org.fencekit.store.spi;

import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.fencekit.store.Mismatch;
import org.fencekit.store.MismatchId;
import org.fencekit.store.OrderRecord;
import org.fencekit.store.OrderStoreAdmin;
import org.fencekit.store.Orphan;
import org.fencekit.store.OrphanId;
import org.fencekit.store.OrphanRecord;

/**
 * The queries behind an {@link OrderStoreAdmin}, on validated arguments, deciding nothing. {@link
 * FencedAdmin} validates, reads the clock, pages and decides, so a backend implements only this:
 * through {@link AdminStorage}, or on its own beside a store that decides in its backend (scripts
 * that are its state machine); {@linkplain org.fencekit.store.spi which of fencekit's stores} does
 * which.
 *
 * <p>Each listing returns at most {@code limit} items strictly after the position given (none: from
 * the start), in the order it names, and must cost in proportion to what it returns: an index or
 * key layout made for it.
 */
public interface AdminQueries {

  /** The backend's name for messages, as the store names it in errors ("postgres"). */
  String backend();

  /**
   * Where a listing of orphans stands: the sort key of the last orphan of a page.
   *
   * @param recordedAt the orphan's {@link Orphan#recordedAt}
   * @param id the orphan's identity
   */
  record OrphanPosition(Instant recordedAt, OrphanId id) {
    /** Checks both parts are present. */
    public OrphanPosition {
      Validate.notNull("recordedAt", recordedAt);
      Validate.notNull("id", id);
    }
  }

  /**
   * Where a listing of mismatches stands: the sort key of the last mismatch of a page.
   *
   * @param recordedAt the mismatch's {@link Mismatch#recordedAt}
   * @param id the mismatch's identity
   */
  record MismatchPosition(Instant recordedAt, MismatchId id) {
    /** Checks both parts are present. */
    public MismatchPosition {
      Validate.notNull("recordedAt", recordedAt);
      Validate.notNull("id", id);
    }
  }

  /**
   * Where a listing of orders stands: the sort key of the last order of a page.
   *
   * @param at the instant the listing sorts by (the lease's end, the first failure)
   * @param sessionId the order's key, which breaks ties
   */
  record OrderPosition(Instant at, String sessionId) {
    /** Checks both parts are present. */
    public OrderPosition {
      Validate.notNull("at", at);
      Validate.sessionId(sessionId);
    }
  }

  /**
   * Unreconciled orphans after {@code after}, ordered by recordedAt, then sessionId, the token's
   * fence, its nonce and the providerOrderId (strings compared as the backend orders its keys).
   *
   * @param after the last orphan of the previous page, or {@code null} for the first page
   */
  List<OrphanRecord> unreconciledOrphans(OrphanPosition after, int limit);

  /**
   * Mismatches after {@code after}, ordered by recordedAt, then sessionId, then nonce (strings
   * compared as the backend orders its keys).
   *
   * @param after the last mismatch of the previous page, or {@code null} for the first page
   */
  List<Mismatch> mismatches(MismatchPosition after, int limit);

  /** The orphan with this identity, or empty. */
  Optional<OrphanRecord> orphan(OrphanId id);

  /**
   * Records the note and the instant on the orphan unless it is reconciled already, in one atomic
   * step, and returns the orphan as stored afterwards (with the first recorded note if it was
   * reconciled before); empty if there is no such orphan. Never changes anything else.
   */
  Optional<OrphanRecord> markReconciled(OrphanId id, String note, Instant reconciledAt);

  /**
   * Orders holding a claim with {@code leaseExpiresAt <= expiredBy}, ordered by leaseExpiresAt,
   * then sessionId.
   *
   * @param after the last order of the previous page (its leaseExpiresAt), or {@code null}
   */
  List<OrderRecord> stuckOrders(Instant expiredBy, OrderPosition after, int limit);

  /**
   * FAILED orders with {@code failures >= minFailures} or {@code failedSince <= failedBy}, ordered
   * by failedSince, then sessionId.
   *
   * @param after the last order of the previous page (its failedSince), or {@code null}
   */
  List<OrderRecord> failedOrders(int minFailures, Instant failedBy, OrderPosition after, int limit);
}
