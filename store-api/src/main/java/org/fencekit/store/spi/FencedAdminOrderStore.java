package org.fencekit.store.spi;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.fencekit.store.Mismatch;
import org.fencekit.store.OrderRecord;
import org.fencekit.store.OrderStoreAdmin;
import org.fencekit.store.OrphanId;
import org.fencekit.store.OrphanRecord;
import org.fencekit.store.Page;
import org.fencekit.store.ReconcileResult;

/**
 * A {@link FencedOrderStore} that is also an {@link OrderStoreAdmin}, over an {@link AdminStorage}:
 * {@linkplain org.fencekit.store.spi most of fencekit's stores} extend it. The admin calls are
 * {@link FencedAdmin}'s (it validates, pages and decides them once for every store). A user's store
 * can keep extending {@link FencedOrderStore} over an {@link Storage} and add this later.
 */
public abstract class FencedAdminOrderStore extends FencedOrderStore implements OrderStoreAdmin {

  private final FencedAdmin admin;

  /**
   * @param storage where the orders live, with the admin queries; closed by {@link #close()}
   * @param clock the time all lease arithmetic and every age uses
   */
  protected FencedAdminOrderStore(AdminStorage storage, Clock clock) {
    super(storage, clock);
    this.admin = new FencedAdmin(storage, clock);
  }

  @Override
  public final Page<OrphanRecord> unreconciledOrphans(String cursor, int pageSize) {
    return admin.unreconciledOrphans(cursor, pageSize);
  }

  @Override
  public final Optional<OrphanRecord> orphan(OrphanId id) {
    return admin.orphan(id);
  }

  @Override
  public final ReconcileResult reconcile(OrphanId id, String note, Instant reconciledAt) {
    return admin.reconcile(id, note, reconciledAt);
  }

  @Override
  public final Page<Mismatch> mismatches(String cursor, int pageSize) {
    return admin.mismatches(cursor, pageSize);
  }

  @Override
  public final Page<OrderRecord> stuckOrders(Duration expiredFor, String cursor, int pageSize) {
    return admin.stuckOrders(expiredFor, cursor, pageSize);
  }

  @Override
  public final Page<OrderRecord> failedOrders(
      int minFailures, Duration failingFor, String cursor, int pageSize) {
    return admin.failedOrders(minFailures, failingFor, cursor, pageSize);
  }
}
