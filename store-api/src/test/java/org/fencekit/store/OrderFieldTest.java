package org.fencekit.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** What defines an order, and the stable encoding of a set of its fields. */
class OrderFieldTest {

  private static final OrderSnapshot A =
      new OrderSnapshot("cs_1", "esim-eu-5gb", 1, "ada@example.com", 1999, "usd");

  private static OrderSnapshot with(String product, int quantity, long amount, String currency) {
    return new OrderSnapshot("cs_1", product, quantity, "ada@example.com", amount, currency);
  }

  @Test
  @DisplayName("each field is told apart on its own; e-mail and currency case are not differences")
  void differing() {
    assertEquals(Set.of(), OrderField.differing(A, A));
    assertEquals(
        Set.of(OrderField.PRODUCT_ID),
        OrderField.differing(A, with("esim-us-5gb", 1, 1999, "usd")));
    assertEquals(
        Set.of(OrderField.QUANTITY), OrderField.differing(A, with("esim-eu-5gb", 2, 1999, "usd")));
    assertEquals(
        Set.of(OrderField.AMOUNT_TOTAL),
        OrderField.differing(A, with("esim-eu-5gb", 1, 2000, "usd")));
    assertEquals(
        Set.of(OrderField.CURRENCY), OrderField.differing(A, with("esim-eu-5gb", 1, 1999, "eur")));
    assertEquals(Set.of(), OrderField.differing(A, with("esim-eu-5gb", 1, 1999, "USD")));
    assertEquals(
        Set.of(),
        OrderField.differing(A, new OrderSnapshot("cs_1", "esim-eu-5gb", 1, null, 1999, "usd")));
    assertEquals(
        List.of(OrderField.PRODUCT_ID, OrderField.CURRENCY),
        List.copyOf(OrderField.differing(A, with("x", 1, 1999, "eur"))));
  }

  @Test
  @DisplayName("the encoding is lower-case keys in declaration order, and reads back")
  void names() {
    assertEquals("product_id", OrderField.PRODUCT_ID.key());
    assertEquals("amount_total", OrderField.AMOUNT_TOTAL.key());
    assertEquals(
        "product_id,quantity,amount_total,currency",
        OrderField.names(EnumSet.allOf(OrderField.class)));
    assertEquals(
        "quantity,currency", OrderField.names(Set.of(OrderField.CURRENCY, OrderField.QUANTITY)));
    assertEquals("", OrderField.names(Set.of()));
    for (var subset :
        List.of(
            EnumSet.noneOf(OrderField.class),
            EnumSet.of(OrderField.AMOUNT_TOTAL),
            EnumSet.allOf(OrderField.class))) {
      assertEquals(subset, OrderField.fromNames(OrderField.names(subset)));
    }
  }

  @Test
  @DisplayName("a malformed encoding is refused, naming the part")
  void badNames() {
    for (String bad :
        List.of("PRODUCT_ID", "quantity,quantity", "quantity,", "email", " quantity")) {
      var e = assertThrows(IllegalArgumentException.class, () -> OrderField.fromNames(bad));
      assertTrue(e.getMessage().startsWith("names '"), e.getMessage());
    }
    assertThrows(NullPointerException.class, () -> OrderField.fromNames(null));
  }

  @Test
  @DisplayName(
      "a Mismatch row keeps no e-mail and must differ; a ClaimResult.Mismatch names fields")
  void records() {
    var id = new MismatchId("cs_1", "0123456789abcdef0123456789abcdef");
    var row = new Mismatch(id, java.time.Instant.EPOCH, A, with("x", 1, 1999, "usd"));
    assertEquals(null, row.stored().customerEmail());
    assertEquals(null, row.offered().customerEmail());
    assertEquals(Set.of(OrderField.PRODUCT_ID), row.fields());
    assertThrows(
        IllegalArgumentException.class, () -> new Mismatch(id, java.time.Instant.EPOCH, A, A));
    assertThrows(
        IllegalArgumentException.class,
        () ->
            new Mismatch(
                id,
                java.time.Instant.EPOCH,
                A,
                new OrderSnapshot("cs_2", "x", 1, null, 1999, "usd")));
    assertThrows(IllegalArgumentException.class, () -> new MismatchId("cs_1", "ABC"));
  }
}
