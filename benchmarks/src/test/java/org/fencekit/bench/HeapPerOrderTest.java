package org.fencekit.bench;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.fencekit.testsupport.ChildJvm;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The memory store's heap per order is what the orders hold, whatever their number. */
class HeapPerOrderTest {

  /** Each size in a JVM of its own, started as this test JVM was (see {@link HeapPerOrder}). */
  private static long measureAlone(int orders) {
    return HeapPerOrder.inOwnJvm(
        orders,
        ChildJvm.command(),
        System.getProperty("surefire.test.class.path", System.getProperty("java.class.path")));
  }

  @Test
  @DisplayName("the memory store's heap per order does not grow with the number of orders")
  void flat() {
    long small = measureAlone(10_000);
    long large = measureAlone(40_000);
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

  @Test
  @DisplayName("a heap measure whose JVM fails says why, not a number")
  void childFailureIsReported() {
    IllegalStateException thrown =
        assertThrows(
            IllegalStateException.class,
            () -> HeapPerOrder.inOwnJvm(10, ChildJvm.command(), "no-such-folder"));
    assertTrue(
        thrown.getMessage().contains("exited with 1")
            && thrown.getMessage().contains(HeapPerOrder.class.getName()),
        thrown.getMessage());
  }
}
