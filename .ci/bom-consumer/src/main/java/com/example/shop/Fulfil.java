package com.example.shop;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.fencekit.store.ClaimId;
import org.fencekit.store.OrderRecord;
import org.fencekit.store.OrderStatus;
import org.fencekit.store.OrderStore;
import org.fencekit.store.WriteResult;
import org.fencekit.store.sqlite.SqliteOrderStore;

/**
 * Runs the README's {@code Fulfilment} example (copied from the README by .ci/bom-check) on a
 * SQLite store: a delivery whose provider call fails, its retry that succeeds, a duplicate
 * delivery, and a stale write. Exits 0 when each does what the README says.
 */
public final class Fulfil {

  public static void main(String[] args) throws Exception {
    Path dir = Files.createTempDirectory("shop-");
    try (OrderStore store = SqliteOrderStore.builder(dir.resolve("orders.db")).build()) {
      AtomicInteger calls = new AtomicInteger();
      Fulfilment fulfilment =
          new Fulfilment(
              store,
              (productId, quantity) -> {
                if (calls.incrementAndGet() == 1) {
                  throw new IOException("timeout");
                }
                return new Fulfilment.Purchase("prov-8c1f2a9e", "LPA:1$smdp.example.com$K2");
              });
      String session = "cs_test_a1B2c3";
      expect(503, fulfilment.onPaid(session, "ada@example.com", 1999, "usd"), "a failed purchase");
      expect(200, fulfilment.onPaid(session, "ada@example.com", 1999, "usd"), "its retry");
      expect(200, fulfilment.onPaid(session, "ada@example.com", 1999, "usd"), "a duplicate");
      expect(2, calls.get(), "provider calls");

      OrderRecord order = store.get(session).orElseThrow();
      if (order.status() != OrderStatus.PROVISIONED || order.fence() != 2) {
        throw new IllegalStateException("expected PROVISIONED at fence 2, got " + order);
      }
      WriteResult stale = store.fail(session, new ClaimId(1, ClaimId.newNonce()), "late");
      if (!(stale instanceof WriteResult.Superseded)) {
        throw new IllegalStateException("a stale fail must be superseded, got " + stale);
      }
      System.out.println("shop: " + session + " provisioned once after a failed attempt");
    } finally {
      try (Stream<Path> files = Files.walk(dir)) {
        files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }

  private static void expect(int expected, int actual, String what) {
    if (expected != actual) {
      throw new IllegalStateException(what + ": expected " + expected + ", got " + actual);
    }
  }
}
