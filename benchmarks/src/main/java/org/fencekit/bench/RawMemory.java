package org.fencekit.bench;

import java.util.concurrent.ConcurrentHashMap;
import org.fencekit.store.ClaimId;

/**
 * The memory store's bare equivalent: a {@link ConcurrentHashMap} whose {@code compute} creates the
 * order with its claim, and compares the token and settles it, with no state machine, validation or
 * orphan list around it.
 */
final class RawMemory implements RawDriver {

  /** The fields the decision reads and writes. */
  private record Row(
      String sessionId,
      String status,
      long fence,
      String claimNonce,
      long leaseExpiresAt,
      String itemId,
      String itemPayload,
      String settledNonce,
      long updatedAt) {}

  /** Replaced, not cleared, between trials: see {@link #clear}. */
  private volatile ConcurrentHashMap<String, Row> orders = new ConcurrentHashMap<>();

  @Override
  public Session session() {
    return new Session() {
      @Override
      public void claimComplete(String sessionId, long now) {
        ConcurrentHashMap<String, Row> orders = RawMemory.this.orders;
        String nonce = ClaimId.newNonce();
        Row claimed =
            orders.compute(
                sessionId,
                (key, row) ->
                    row != null
                        ? row
                        : new Row(
                            key,
                            "PENDING",
                            1,
                            nonce,
                            now + ClaimCompleteBenchmark.LEASE.toMillis(),
                            null,
                            null,
                            null,
                            now));
        if (!nonce.equals(claimed.claimNonce())) {
          throw new IllegalStateException("fresh order " + sessionId + " was not claimed");
        }
        Row done =
            orders.computeIfPresent(
                sessionId,
                (key, row) ->
                    !nonce.equals(row.claimNonce())
                        ? row
                        : new Row(
                            key,
                            "PROVISIONED",
                            row.fence(),
                            null,
                            0,
                            Orders.ITEM.providerOrderId(),
                            Orders.ITEM.payload(),
                            nonce,
                            now));
        if (done == null || !"PROVISIONED".equals(done.status())) {
          throw new IllegalStateException("the owner's complete of " + sessionId + " was refused");
        }
      }

      @Override
      public void close() {}
    };
  }

  /**
   * Forgets every order, as {@link BackendState#emptyTheHeap} does for the memory store: a new map,
   * as the store it replaces has. Clearing would keep the table grown by the trials before, so the
   * map would skip every resize the store's new map makes in its trial (about a tenth of the
   * store's samples), and would pay {@code clear()}'s walk of that table instead.
   */
  void clear() {
    orders = new ConcurrentHashMap<>();
  }

  @Override
  public void close() {
    orders.clear();
  }
}
