package org.fencekit.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.fencekit.store.memory.MemoryOrderStore;

/**
 * The memory store's heap per stored order: the heap in use after a full GC with {@code n}
 * provisioned orders held, minus the empty store's, divided by {@code n}. Measured at two sizes to
 * show it does not grow with the number of orders beyond what each order holds, each in a JVM of
 * its own ({@link #inOwnJvm}): in a JVM that did other work, what that work held at one reading and
 * not the other fell into the window (302 B an order at 10,000 orders and 226 B at 40,000 in a test
 * JVM, twice; a third measure in one JVM read less heap with 10,000 orders than before them).
 */
final class HeapPerOrder {

  private HeapPerOrder() {}

  /** The child {@link #inOwnJvm} starts: prints {@link #measure} for the orders it is given. */
  public static void main(String[] args) {
    System.out.println(measure(Integer.parseInt(args[0])));
  }

  /**
   * {@link #measure} in a fresh JVM: {@code java} (the program and its options) with {@code
   * classPath}, which must hold this class and the memory store.
   *
   * @throws IllegalStateException if the child fails, prints no number or runs past two minutes
   */
  static long inOwnJvm(int orders, List<String> java, String classPath) {
    List<String> command = new ArrayList<>(java);
    command.addAll(
        List.of("-cp", classPath, HeapPerOrder.class.getName(), Integer.toString(orders)));
    Path output = null;
    try {
      // to a file, not a pipe: a child that hangs with its output open cannot hold this call past
      // its two minutes
      output = Files.createTempFile("fencekit-heap-per-order", ".out");
      Process child =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(output.toFile())
              .start();
      if (!child.waitFor(120, TimeUnit.SECONDS)) {
        child.destroyForcibly();
        throw new IllegalStateException("the heap measure's JVM ran past 2 minutes: " + command);
      }
      String printed = Files.readString(output).strip();
      if (child.exitValue() != 0) {
        throw new IllegalStateException(
            "the heap measure's JVM exited with " + child.exitValue() + ": " + printed);
      }
      try {
        return Long.parseLong(printed);
      } catch (NumberFormatException e) {
        throw new IllegalStateException("the heap measure's JVM printed no number: " + printed, e);
      }
    } catch (IOException e) {
      throw new IllegalStateException("cannot run the heap measure's JVM " + command + ": " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while measuring the heap per order", e);
    } finally {
      if (output != null) {
        output.toFile().delete();
      }
    }
  }

  /** {@link #inOwnJvm} on this JVM's java and class path, as the comparison's report measures. */
  static long inOwnJvm(int orders) {
    return inOwnJvm(
        orders,
        List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString()),
        System.getProperty("java.class.path"));
  }

  /** Bytes of heap per provisioned order, with {@code orders} of them in one store. */
  static long measure(int orders) {
    MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
    String prefix = Orders.newRunPrefix();
    // what the first orders of a JVM leave for good (classes' mirrors and constants, the nonce
    // generator's state) falls outside the measured window; what the JVM did before this call is
    // not kept out (inOwnJvm measures in a JVM of its own for that)
    MemoryOrderStore warmup = new MemoryOrderStore();
    for (int i = 0; i < 100; i++) {
      Orders.claimComplete(warmup, prefix + "warmup-" + i);
    }
    long before = usedAfterGc(memory);
    MemoryOrderStore store = new MemoryOrderStore();
    for (int i = 0; i < orders; i++) {
      Orders.claimComplete(store, prefix + i);
    }
    long after = usedAfterGc(memory);
    if (store.get(prefix + (orders - 1)).isEmpty()) {
      throw new IllegalStateException("the memory store lost an order while being measured");
    }
    return (after - before) / orders;
  }

  private static long usedAfterGc(MemoryMXBean memory) {
    long used = Long.MAX_VALUE;
    for (int i = 0; i < 3; i++) {
      System.gc();
      used = Math.min(used, memory.getHeapMemoryUsage().getUsed());
    }
    return used;
  }
}
