package org.fencekit.bench;

import java.util.UUID;
import org.fencekit.store.ClaimId;
import org.fencekit.store.ClaimResult;
import org.fencekit.store.Item;
import org.fencekit.store.OrderSnapshot;
import org.fencekit.store.OrderStore;
import org.fencekit.store.WriteResult;

/**
 * The orders the benchmarks create: session ids unique to one run (so runs against a shared server
 * never meet), and a snapshot and item the size of a real eSIM order.
 */
final class Orders {

  /** What a winner's settle stores as the delivered item. */
  static final Item ITEM = new Item("prov-8c1f2a9e", "LPA:1$smdp.example.com$K2-8C1F2A9E-1D7Q3B");

  /** What a settle records as the failure. */
  static final String ERROR = "provider timeout after 30 s";

  private Orders() {}

  /** A prefix no other run uses: {@code bench_<8 hex>_}. Plain characters, so keys stay plain. */
  static String newRunPrefix() {
    return "bench_" + UUID.randomUUID().toString().substring(0, 8) + "_";
  }

  /** The order a Checkout session for one eSIM would create. */
  static OrderSnapshot snapshot(String sessionId) {
    return new OrderSnapshot(sessionId, "esim-eu-5gb", 1, "customer@example.com", 1999, "usd");
  }

  /**
   * Claims the fresh order {@code sessionId} on {@code store} with {@link
   * ClaimCompleteBenchmark#LEASE} and completes it with {@link #ITEM}: the happy path of a webhook
   * handler, the one operation of {@link ClaimCompleteBenchmark}.
   *
   * @throws IllegalStateException if the claim or the complete was refused
   */
  static WriteResult claimComplete(OrderStore store, String sessionId) {
    ClaimResult claim = store.claim(snapshot(sessionId), ClaimCompleteBenchmark.LEASE);
    if (!(claim instanceof ClaimResult.Claimed claimed)) {
      throw new IllegalStateException("fresh order " + sessionId + " was not claimed: " + claim);
    }
    WriteResult write = store.complete(sessionId, claimed.claimId(), ITEM);
    if (!(write instanceof WriteResult.Written)) {
      throw new IllegalStateException(
          "the owner's complete of " + sessionId + " was refused: " + write);
    }
    return write;
  }

  /** A winner's settle of {@code sessionId}: a complete with {@link #ITEM}, or a fail. */
  static WriteResult settle(OrderStore store, String sessionId, ClaimId claimId, boolean complete) {
    return complete
        ? store.complete(sessionId, claimId, ITEM)
        : store.fail(sessionId, claimId, ERROR);
  }
}
