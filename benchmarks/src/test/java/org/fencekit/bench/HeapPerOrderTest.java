package org.fencekit.bench;

import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The memory store's heap per order is what the orders hold, whatever their number. */
class HeapPerOrderTest {

  @Test
  @DisplayName("the memory store's heap per order does not grow with the number of orders")
  void flat() {
    long small = HeapPerOrder.measure(10_000);
    long large = HeapPerOrder.measure(40_000);
    assertTrue(
        small > 100 && large > 100,
        "an order must hold its ids and token: " + small + " B, " + large + " B");
    assertTrue(
        large < small * 1.25 && large > small * 0.75,
        "heap per order went from "
            + small
            + " B with 10,000 orders to "
            + large
            + " B with 40,000");
  }
}
