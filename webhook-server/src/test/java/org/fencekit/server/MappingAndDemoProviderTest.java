package org.fencekit.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import org.fencekit.fulfilment.Ownership;
import org.fencekit.fulfilment.Purchase;
import org.fencekit.store.ClaimId;
import org.fencekit.store.Item;
import org.fencekit.store.OrderSnapshot;
import org.fencekit.webhook.MetadataMapping;
import org.junit.jupiter.api.Test;

class MappingAndDemoProviderTest {

  private static final OrderSnapshot ORDER =
      new OrderSnapshot("cs_test_map1", "esim-eu-5gb", 3, "buyer@example.com", 4500, "eur");

  @Test
  void theMetadataMappingReadsWhatStripeSends() {
    assertEquals(ORDER, new MetadataMapping().snapshot(StripeDeliveries.session(ORDER, "paid")));
  }

  @Test
  void quantityDefaultsToOneAndEmailMayBeAbsent() {
    JsonObject session = StripeDeliveries.session(ORDER, "paid");
    session.getAsJsonObject("metadata").remove("quantity");
    session.remove("customer_details");
    OrderSnapshot mapped = new MetadataMapping().snapshot(session);
    assertEquals(1, mapped.quantity());
    assertNull(mapped.customerEmail());
  }

  @Test
  void aSessionThatCannotBecomeAnOrderSaysWhy() {
    JsonObject noProduct = StripeDeliveries.session(ORDER, "paid");
    noProduct.getAsJsonObject("metadata").remove("product_id");
    assertTrue(
        assertThrows(
                IllegalArgumentException.class, () -> new MetadataMapping().snapshot(noProduct))
            .getMessage()
            .contains("metadata.product_id"));
    JsonObject badQuantity = StripeDeliveries.session(ORDER, "paid");
    badQuantity.getAsJsonObject("metadata").addProperty("quantity", "a few");
    assertThrows(IllegalArgumentException.class, () -> new MetadataMapping().snapshot(badQuantity));
    JsonObject noAmount = StripeDeliveries.session(ORDER, "paid");
    noAmount.remove("amount_total");
    assertThrows(IllegalArgumentException.class, () -> new MetadataMapping().snapshot(noAmount));
  }

  @Test
  void theDemoProviderHandsEveryAttemptOnAnOrderTheSameItem() {
    Ownership owned =
        new Ownership() {
          @Override
          public ClaimId claimId() {
            return new ClaimId(1, ClaimId.newNonce());
          }

          @Override
          public boolean owned() {
            return true;
          }
        };
    DemoProvider demo = new DemoProvider();
    Item first = demo.buy(new Purchase(ORDER, Purchase.idempotencyKeyFor("cs_test_map1"), owned));
    Item retry = demo.buy(new Purchase(ORDER, Purchase.idempotencyKeyFor("cs_test_map1"), owned));
    Item other = demo.buy(new Purchase(ORDER, Purchase.idempotencyKeyFor("cs_test_map2"), owned));
    assertEquals(first, retry);
    assertNotEquals(first.providerOrderId(), other.providerOrderId());
    assertTrue(first.payload().startsWith("LPA:1$"), first.payload());
  }
}
