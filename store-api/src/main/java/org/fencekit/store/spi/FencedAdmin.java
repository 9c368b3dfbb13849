package org.fencekit.store.spi;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.IntFunction;
import org.fencekit.store.Mismatch;
import org.fencekit.store.OrderRecord;
import org.fencekit.store.OrderStoreAdmin;
import org.fencekit.store.OrphanId;
import org.fencekit.store.OrphanRecord;
import org.fencekit.store.Page;
import org.fencekit.store.ReconcileResult;
import org.fencekit.store.UnknownOrphanException;

/**
 * An {@link OrderStoreAdmin} over {@link AdminQueries}: the one place its calls are validated,
 * paged and decided, for every store: through {@link FencedAdminOrderStore}, or beside a store's
 * own scripts ({@linkplain org.fencekit.store.spi which of fencekit's stores} does which).
 *
 * <p>Each admin call:
 *
 * <ol>
 *   <li>validates every argument (cursor, page size, ages, identity, note), so bad input never
 *       reaches the storage;
 *   <li>turns an age into an instant on the store's clock ({@code now - age});
 *   <li>asks the storage for one item more than the page size, after the cursor's position, so it
 *       knows whether a next page exists; the next cursor is the last item's sort key;
 *   <li>for a reconcile, lets the storage record the note unless one is recorded, atomically, and
 *       answers from what is recorded: the note asked for is {@code Reconciled}, another one {@code
 *       AlreadyReconciled}.
 * </ol>
 */
public final class FencedAdmin implements OrderStoreAdmin {

  private static final String ORPHANS = "unreconciledOrphans";
  private static final String MISMATCHES = "mismatches";
  private static final String STUCK = "stuckOrders";
  private static final String FAILED = "failedOrders";

  private final AdminQueries storage;
  private final Clock clock;

  /**
   * @param storage the queries, on validated arguments
   * @param clock the time every age is measured on (the store's clock)
   */
  public FencedAdmin(AdminQueries storage, Clock clock) {
    this.storage = Validate.notNull("storage", storage);
    this.clock = Validate.notNull("clock", clock);
  }

  @Override
  public Page<OrphanRecord> unreconciledOrphans(String cursor, int pageSize) {
    AdminQueries.OrphanPosition after = Cursors.orphanPosition(ORPHANS, cursor);
    return page(
        pageSize,
        limit -> storage.unreconciledOrphans(after, limit),
        last -> Cursors.of(ORPHANS, last));
  }

  @Override
  public Optional<OrphanRecord> orphan(OrphanId id) {
    return storage.orphan(Validate.notNull("id", id));
  }

  @Override
  public ReconcileResult reconcile(OrphanId id, String note, Instant reconciledAt) {
    Validate.notNull("id", id);
    Validate.text("note", note, MAX_NOTE_LENGTH);
    Instant at = Validate.notNull("reconciledAt", reconciledAt).truncatedTo(ChronoUnit.MILLIS);
    OrphanRecord stored =
        storage
            .markReconciled(id, note, at)
            .orElseThrow(() -> new UnknownOrphanException(storage.backend(), id));
    if (!stored.reconciled() || !stored.id().equals(id)) {
      throw new IllegalStateException(
          String.format(
              "%s store: marking the %s reconciled answered %s: the storage must answer that"
                  + " orphan as stored after the mark",
              storage.backend(), id, stored));
    }
    return note.equals(stored.note())
        ? new ReconcileResult.Reconciled(stored)
        : new ReconcileResult.AlreadyReconciled(stored);
  }

  @Override
  public Page<Mismatch> mismatches(String cursor, int pageSize) {
    AdminQueries.MismatchPosition after = Cursors.mismatchPosition(MISMATCHES, cursor);
    return page(
        pageSize, limit -> storage.mismatches(after, limit), last -> Cursors.of(MISMATCHES, last));
  }

  @Override
  public Page<OrderRecord> stuckOrders(Duration expiredFor, String cursor, int pageSize) {
    Instant expiredBy = ago("expiredFor", expiredFor);
    AdminQueries.OrderPosition after = Cursors.orderPosition(STUCK, cursor);
    return page(
        pageSize,
        limit -> storage.stuckOrders(expiredBy, after, limit),
        last -> Cursors.of(STUCK, last.leaseExpiresAt(), last.sessionId()));
  }

  @Override
  public Page<OrderRecord> failedOrders(
      int minFailures, Duration failingFor, String cursor, int pageSize) {
    if (minFailures < 1) {
      throw new IllegalArgumentException(
          "minFailures must be at least 1, got %s; pass Integer.MAX_VALUE to list by age alone"
              .formatted(minFailures));
    }
    Instant failedBy = ago("failingFor", failingFor);
    AdminQueries.OrderPosition after = Cursors.orderPosition(FAILED, cursor);
    return page(
        pageSize,
        limit -> storage.failedOrders(minFailures, failedBy, after, limit),
        last -> Cursors.of(FAILED, last.failedSince(), last.sessionId()));
  }

  /** {@code now - age} on the store's clock, for an age between zero and {@link #MAX_AGE}. */
  private Instant ago(String name, Duration age) {
    Validate.notNull(name, age);
    if (age.isNegative() || age.compareTo(MAX_AGE) > 0) {
      throw new IllegalArgumentException(
          name + " must be zero to " + MAX_AGE.toDays() + " days, got " + age);
    }
    return OrderStateMachine.now(clock).minusMillis(age.toMillis());
  }

  /** A page of at most {@code size} items, asking the query for one more to see a next page. */
  private static <T> Page<T> page(
      int size, IntFunction<List<T>> query, Function<T, String> cursorAfter) {
    if (size < 1 || size > MAX_PAGE_SIZE) {
      throw new IllegalArgumentException(
          "pageSize must be 1 to " + MAX_PAGE_SIZE + ", got " + size);
    }
    List<T> found = query.apply(size + 1);
    if (found.size() <= size) {
      return new Page<>(found, null);
    }
    List<T> items = found.subList(0, size);
    return new Page<>(items, cursorAfter.apply(items.get(size - 1)));
  }
}
