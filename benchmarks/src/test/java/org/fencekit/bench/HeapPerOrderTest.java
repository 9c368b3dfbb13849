package org.fencekit.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.fencekit.testsupport.ChildJvm;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The memory store's heap per order is what the orders hold, whatever their number. */
class HeapPerOrderTest {

  /** The child: prints {@link HeapPerOrder#measure} for the number of orders it is given. */
  public static void main(String[] args) {
    System.out.println(HeapPerOrder.measure(Integer.parseInt(args[0])));
  }

  /**
   * Each size in a JVM of its own: in the test JVM, what earlier tests and the test runner leave on
   * the heap (the runner's output buffered while a busy build reads it slowly, say) fell into one
   * window or the other, twice in rehearsals of CI (302 B an order at 10,000 and 226 B at 40,000,
   * both times), and a third measure in one JVM read less heap with 10,000 orders than before them.
   */
  private static long measureAlone(int orders) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(ChildJvm.command());
    command.addAll(
        List.of(
            "-cp",
            System.getProperty("surefire.test.class.path", System.getProperty("java.class.path")),
            HeapPerOrderTest.class.getName(),
            Integer.toString(orders)));
    Process child = new ProcessBuilder(command).redirectErrorStream(true).start();
    String printed = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(child.waitFor(120, TimeUnit.SECONDS), "the child did not exit: " + printed);
    assertEquals(0, child.exitValue(), printed);
    return Long.parseLong(printed.strip());
  }

  @Test
  @DisplayName("the memory store's heap per order does not grow with the number of orders")
  void flat() throws IOException, InterruptedException {
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
}
