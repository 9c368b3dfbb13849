package org.fencekit.bench;

import java.util.UUID;
import org.fencekit.store.Item;
import org.fencekit.store.OrderSnapshot;

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
}
