package com.example.shop;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.fencekit.store.ClaimId;
import org.fencekit.store.ClaimResult;
import org.fencekit.store.Item;
import org.fencekit.store.OrderSnapshot;
import org.fencekit.store.OrderStatus;
import org.fencekit.store.OrderStore;
import org.fencekit.store.WriteResult;
import org.fencekit.store.sqlite.SqliteOrderStore;

/**
 * The README's "Use it" example as a program: one webhook delivery claims an order, "buys" the
 * item and completes it; a stale attempt's write is superseded. Exits 0 when the store behaved as
 * the README says.
 */
public final class Fulfil {

  public static void main(String[] args) throws Exception {
    Path dir = Files.createTempDirectory("shop-");
    try (OrderStore store = SqliteOrderStore.builder(dir.resolve("orders.db")).build()) {
      OrderSnapshot snapshot =
          new OrderSnapshot("cs_test_a1B2c3", "esim-eu-5gb", 1, "ada@example.com", 1999, "usd");

      ClaimResult claim = store.claim(snapshot, Duration.ofMinutes(2));
      if (!(claim instanceof ClaimResult.Claimed claimed)) {
        throw new IllegalStateException("a fresh order must be claimed, got " + claim);
      }
      ClaimId token = claimed.claimId();

      Item item = new Item("prov-8c1f2a9e", "LPA:1$smdp.example.com$K2-8C1F2A9E");
      WriteResult written = store.complete(snapshot.sessionId(), token, item);
      if (!(written instanceof WriteResult.Written)) {
        throw new IllegalStateException("the owner's complete must land, got " + written);
      }

      WriteResult stale =
          store.fail(snapshot.sessionId(), new ClaimId(token.fence(), ClaimId.newNonce()), "late");
      if (!(stale instanceof WriteResult.Superseded)
          || store.get(snapshot.sessionId()).orElseThrow().status() != OrderStatus.PROVISIONED) {
        throw new IllegalStateException("a stale fail must change nothing, got " + stale);
      }
      System.out.println("shop: order " + snapshot.sessionId() + " provisioned once, stale fail superseded");
    } finally {
      try (var files = Files.walk(dir)) {
        files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }
}
