package org.fencekit.fulfilment;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import org.fencekit.store.ClaimId;
import org.fencekit.store.ClaimResult;
import org.fencekit.store.Item;
import org.fencekit.store.OrderSnapshot;
import org.fencekit.store.memory.MemoryOrderStore;
import org.fencekit.tck.TestClock;
import org.junit.jupiter.api.Test;

class MicrometerMetricsTest {

  private final TestClock clock = new TestClock();
  private final MemoryOrderStore store = new MemoryOrderStore(clock);
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

  private static CheckoutEvent paid(String session) {
    return CheckoutEvent.completed(
        "evt_" + session,
        PaymentStatus.PAID,
        new OrderSnapshot(session, "esim-eu-5gb", 1, null, 1500, "eur"));
  }

  private double count(String name, String... tags) {
    return registry.get(name).tags(tags).counter().count();
  }

  @Test
  void aFulfilmentADuplicateAndAnOrphanAreCountedByOutcome() {
    Item esim = new Item("prov-1", null);
    try (FulfilmentHandler handler =
        FulfilmentHandler.builder(store, purchase -> esim)
            .clock(clock)
            .metrics(new MicrometerMetrics(registry))
            .build()) {
      handler.handle(paid("cs_1"));
      handler.handle(paid("cs_1"));
      assertEquals(1, count("fencekit.claims", "outcome", "claimed"));
      assertEquals(1, count("fencekit.claims", "outcome", "provisioned"));
      assertEquals(1, count("fencekit.settles", "operation", "complete", "outcome", "written"));
      assertEquals(1, count("fencekit.deliveries", "outcome", "fulfilled", "status", "200"));
      assertEquals(1, count("fencekit.deliveries", "outcome", "duplicate", "status", "200"));
      assertEquals(
          1, registry.get("fencekit.provider.calls").tags("outcome", "bought").timer().count());
      assertEquals(
          2, registry.get("fencekit.store.calls").tags("operation", "claim").timer().count());
      assertEquals(0, registry.get("fencekit.provider.calls.in.flight").gauge().value());
    }
  }

  @Test
  void aMismatchIsCountedAsAClaimOutcomeAndA422Delivery() {
    try (FulfilmentHandler handler =
        FulfilmentHandler.builder(store, purchase -> new Item("prov-1", null))
            .clock(clock)
            .metrics(new MicrometerMetrics(registry))
            .build()) {
      handler.handle(paid("cs_4"));
      handler.handle(
          CheckoutEvent.completed(
              "evt_other",
              PaymentStatus.PAID,
              new OrderSnapshot("cs_4", "esim-world-10gb", 3, null, 8997, "eur")));
    }
    assertEquals(1, count("fencekit.claims", "outcome", "mismatch"));
    assertEquals(1, count("fencekit.deliveries", "outcome", "mismatch", "status", "422"));
    assertEquals(
        1, registry.get("fencekit.provider.calls").tags("outcome", "bought").timer().count());
  }

  @Test
  void aSupersededCompleteCountsAnOrphanAndARefusalItsOutcome() {
    Provider slow =
        purchase -> {
          clock.advance(Duration.ofMinutes(2));
          ClaimId newer =
              ((ClaimResult.Claimed) store.claim(purchase.snapshot(), Duration.ofMinutes(2)))
                  .claimId();
          store.complete(purchase.sessionId(), newer, new Item("prov-2", null));
          return new Item("prov-1", null);
        };
    try (FulfilmentHandler handler =
        FulfilmentHandler.builder(store, slow)
            .clock(clock)
            .metrics(new MicrometerMetrics(registry))
            .build()) {
      handler.handle(paid("cs_2"));
    }
    assertEquals(1, count("fencekit.orphans", "same_purchase", "false"));
    assertEquals(1, count("fencekit.settles", "operation", "complete", "outcome", "superseded"));
    try (FulfilmentHandler refusing =
        FulfilmentHandler.builder(
                store,
                purchase -> {
                  throw ProviderException.nothingBought("sold out");
                })
            .clock(clock)
            .metrics(new MicrometerMetrics(registry))
            .build()) {
      refusing.handle(paid("cs_3"));
    }
    assertEquals(
        1, registry.get("fencekit.provider.calls").tags("outcome", "refused").timer().count());
    assertEquals(1, count("fencekit.settles", "operation", "fail", "outcome", "written"));
    assertEquals(1, count("fencekit.deliveries", "outcome", "provider_failed", "status", "500"));
  }
}
