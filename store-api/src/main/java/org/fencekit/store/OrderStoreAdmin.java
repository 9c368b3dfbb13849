package org.fencekit.store;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * What an operator's tooling asks of a store: the orphans nobody has reconciled yet, across all
 * orders, the claims that offered a different order under a known key, and the orders that need a
 * look. It is a role of its own beside {@link OrderStore}: every store fencekit ships implements
 * both (store-spec's {@code StoreSpec.Kind} lists them), and a store that implements only {@link
 * OrderStore} still compiles and works (check with {@code store instanceof OrderStoreAdmin}).
 *
 * <p>Listings are oldest first and paged by an opaque cursor (see {@link Page}): pass {@code null}
 * for the first page, then each page's {@link Page#nextCursor()} for the next one, with the same
 * other arguments. A listing neither skips nor repeats an item that is there during the whole
 * listing; an item recorded meanwhile is listed at most once. Each listing costs in proportion to
 * what it returns, not to the number of orders (an index made for it).
 *
 * <p>Bad arguments throw {@link IllegalArgumentException} or {@link NullPointerException} naming
 * the argument before anything reaches the backend; a backend that cannot be reached throws {@link
 * StoreUnavailableException}. Ages are measured on the store's clock, at millisecond precision.
 */
public interface OrderStoreAdmin {

  /** The largest page a listing returns. */
  int MAX_PAGE_SIZE = 1000;

  /** The longest reconciliation note, in chars. */
  int MAX_NOTE_LENGTH = 1024;

  /** The longest age a query of orders takes (a hundred years). */
  Duration MAX_AGE = Duration.ofDays(36_500);

  /**
   * The orphans not reconciled yet, across all orders, oldest first (by {@link Orphan#recordedAt},
   * then by identity).
   *
   * @param cursor {@code null} for the first page, else the {@link Page#nextCursor()} of the page
   *     before
   * @param pageSize how many at most, 1 to {@value #MAX_PAGE_SIZE}
   */
  Page<OrphanRecord> unreconciledOrphans(String cursor, int pageSize);

  /** The orphan with this identity, reconciled or not; empty if the store never recorded it. */
  Optional<OrphanRecord> orphan(OrphanId id);

  /**
   * Marks the orphan reconciled with a note (what was done about it: refunded, delivered by hand)
   * and the instant it was done, at millisecond precision. It then leaves {@link
   * #unreconciledOrphans}; its record, item and token are kept as they are, never deleted.
   *
   * <p>Idempotent: the same note again answers {@link ReconcileResult.Reconciled} with what was
   * recorded first (its instant); another note on a reconciled orphan changes nothing and answers
   * {@link ReconcileResult.AlreadyReconciled} with what is recorded. Of concurrent marks of one
   * orphan exactly one note is recorded.
   *
   * @param note non-blank, at most {@value #MAX_NOTE_LENGTH} chars, no control characters
   * @param reconciledAt when the orphan was dealt with; truncated to milliseconds
   * @throws UnknownOrphanException if the store never recorded the orphan
   */
  ReconcileResult reconcile(OrphanId id, String note, Instant reconciledAt);

  /**
   * The claims that offered a different order under a stored order's session id ({@link
   * ClaimResult.Mismatch}), one per such claim, across all orders, oldest first (by {@link
   * Mismatch#recordedAt}, then by identity). An operator finds out which order each session id
   * names; nothing was bought for them. The listing is exact: every mismatched claim is listed
   * once.
   *
   * @param cursor {@code null} for the first page, else the {@link Page#nextCursor()} before
   * @param pageSize how many at most, 1 to {@value #MAX_PAGE_SIZE}
   */
  Page<Mismatch> mismatches(String cursor, int pageSize);

  /**
   * Orders whose claim's lease ran out at least {@code expiredFor} ago without a settle or another
   * claim (a crashed attempt that no retry came back for): a claim is held and {@code
   * leaseExpiresAt <= now - expiredFor}. Oldest lease first, then by session id. An order whose
   * lease moves while the listing is read (an extend, a claim) may be listed on a later page again.
   *
   * @param expiredFor zero or more, at most {@link #MAX_AGE}; zero lists every expired lease
   * @param cursor {@code null} for the first page, else the {@link Page#nextCursor()} before
   * @param pageSize how many at most, 1 to {@value #MAX_PAGE_SIZE}
   */
  Page<OrderRecord> stuckOrders(Duration expiredFor, String cursor, int pageSize);

  /**
   * Orders that are FAILED and either failed at least {@code minFailures} times ({@link
   * OrderRecord#failures()}) or have been failing for at least {@code failingFor} ({@code
   * failedSince <= now - failingFor}). Longest failing first (by {@link OrderRecord#failedSince()},
   * then by session id).
   *
   * @param minFailures at least 1; {@link Integer#MAX_VALUE} to list by age alone
   * @param failingFor zero or more, at most {@link #MAX_AGE}; {@link #MAX_AGE} to list by count
   *     alone
   * @param cursor {@code null} for the first page, else the {@link Page#nextCursor()} before
   * @param pageSize how many at most, 1 to {@value #MAX_PAGE_SIZE}
   */
  Page<OrderRecord> failedOrders(int minFailures, Duration failingFor, String cursor, int pageSize);
}
