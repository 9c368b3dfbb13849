package org.fencekit.fulfilment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class PurchaseTest {

  @Test
  void aStripeSessionIdGivesAReadableKey() {
    assertEquals("fencekit-order-cs_test_a1B2c3", Purchase.idempotencyKeyFor("cs_test_a1B2c3"));
  }

  @Test
  void theKeyDependsOnTheSessionOnly() {
    assertEquals(Purchase.idempotencyKeyFor("cs_live_x"), Purchase.idempotencyKeyFor("cs_live_x"));
    assertNotEquals(
        Purchase.idempotencyKeyFor("cs_live_x"), Purchase.idempotencyKeyFor("cs_live_y"));
  }

  @Test
  void anyOtherSessionIdIsHashedIntoABoundedKey() {
    String hostile = "order/1 {é}\n";
    String key = Purchase.idempotencyKeyFor(hostile);
    assertTrue(key.matches("fencekit-order-sha256-[0-9a-f]{64}"), key);
    String longId = "c".repeat(250);
    String longKey = Purchase.idempotencyKeyFor(longId);
    assertTrue(longKey.length() <= 255, longKey);
    assertTrue(longKey.startsWith("fencekit-order-sha256-"), longKey);
  }

  @Test
  void aPlainIdThatLooksLikeAHashCannotCollideWithOne() {
    String hashed = Purchase.idempotencyKeyFor("a b");
    String lookalike = hashed.substring("fencekit-order-".length());
    assertNotEquals(hashed, Purchase.idempotencyKeyFor(lookalike));
  }
}
