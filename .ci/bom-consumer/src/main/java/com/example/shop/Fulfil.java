package com.example.shop;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
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
 * delivery, a stale write, and a crash between the purchase and {@code complete} whose retry gets
 * the same item from the provider, not a second one. Exits 0 when each does what the README says.
 */
public final class Fulfil {

  /** A process dying between the provider's answer and the write that records it. */
  static final class Crash extends RuntimeException {
    Crash() {
      super("the handler died after the purchase, before complete");
    }
  }

  /** A provider that honours idempotency keys, as Stripe's and most providers' APIs do. */
  static final class KeyedProvider implements Fulfilment.Provider {
    final Map<String, Fulfilment.Purchase> bought = new HashMap<>();
    final AtomicInteger calls = new AtomicInteger();
    int failCall; // this call (1-based) answers an IOException
    int crashCall; // this call buys, then its handler dies

    @Override
    public Fulfilment.Purchase buy(String key, String productId, int quantity) throws IOException {
      int call = calls.incrementAndGet();
      if (call == failCall) {
        throw new IOException("timeout");
      }
      Fulfilment.Purchase purchase =
          bought.computeIfAbsent(
              key, k -> new Fulfilment.Purchase("prov-" + bought.size(), "LPA:1$smdp.example$" + k));
      if (call == crashCall) {
        throw new Crash();
      }
      return purchase;
    }
  }

  public static void main(String[] args) throws Exception {
    Path dir = Files.createTempDirectory("shop-");
    MovableClock clock = new MovableClock();
    try (OrderStore store =
        SqliteOrderStore.builder(dir.resolve("orders.db")).clock(clock).build()) {
      KeyedProvider provider = new KeyedProvider();
      provider.failCall = 1;
      Fulfilment fulfilment = new Fulfilment(store, provider);
      String session = "cs_test_a1B2c3";
      expect(503, fulfilment.onPaid(session, "ada@example.com", 1999, "usd"), "a failed purchase");
      expect(200, fulfilment.onPaid(session, "ada@example.com", 1999, "usd"), "its retry");
      expect(200, fulfilment.onPaid(session, "ada@example.com", 1999, "usd"), "a duplicate");
      expect(2, provider.calls.get(), "provider calls");

      OrderRecord order = store.get(session).orElseThrow();
      if (order.status() != OrderStatus.PROVISIONED || order.fence() != 2) {
        throw new IllegalStateException("expected PROVISIONED at fence 2, got " + order);
      }
      WriteResult stale = store.fail(session, new ClaimId(1, ClaimId.newNonce()), "late");
      if (!(stale instanceof WriteResult.Superseded)) {
        throw new IllegalStateException("a stale fail must be superseded, got " + stale);
      }

      String crashed = "cs_test_d4E5f6";
      provider.crashCall = provider.calls.get() + 1;
      try {
        fulfilment.onPaid(crashed, "bo@example.com", 2999, "eur");
        throw new IllegalStateException("the crash did not happen");
      } catch (Crash expected) {
        // the process is gone; its lease runs out and Stripe redelivers
      }
      clock.advance(Duration.ofMinutes(3));
      expect(200, fulfilment.onPaid(crashed, "bo@example.com", 2999, "eur"), "the redelivery");
      expect(2, provider.bought.size(), "purchases (one per order, the crash's retry none)");
      OrderRecord retried = store.get(crashed).orElseThrow();
      if (!retried.item().providerOrderId().equals(provider.bought.get(crashed).orderId())) {
        throw new IllegalStateException("the retry recorded another item: " + retried);
      }
      System.out.println(
          "shop: " + session + " provisioned once after a failed attempt, " + crashed
              + " once after a crash");
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

  /** The store's clock, moved by the run to let a dead attempt's lease run out. */
  static final class MovableClock extends Clock {
    private Instant now = Instant.parse("2026-12-05T12:00:00Z");

    void advance(Duration by) {
      now = now.plus(by);
    }

    @Override
    public Instant instant() {
      return now;
    }

    @Override
    public java.time.ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(java.time.ZoneId zone) {
      return this;
    }
  }
}
