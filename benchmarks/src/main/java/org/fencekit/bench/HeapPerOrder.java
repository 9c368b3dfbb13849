package org.fencekit.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import org.fencekit.store.memory.MemoryOrderStore;

/**
 * The memory store's heap per stored order: the heap in use after a full GC with {@code n}
 * provisioned orders held, minus the empty store's, divided by {@code n}. Measured at two sizes to
 * show it does not grow with the number of orders beyond what each order holds.
 */
final class HeapPerOrder {

  private HeapPerOrder() {}

  /** Bytes of heap per provisioned order, with {@code orders} of them in one store. */
  static long measure(int orders) {
    MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
    String prefix = Orders.newRunPrefix();
    // what the first orders of a JVM leave for good (classes' mirrors and constants, the nonce
    // generator's state) falls outside the measured window; what the JVM did before this call is
    // not kept out (HeapPerOrderTest measures each size in a JVM of its own for that)
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
