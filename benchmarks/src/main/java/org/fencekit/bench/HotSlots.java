package org.fencekit.bench;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.fencekit.store.OrderSnapshot;

/**
 * The hot orders every thread of a benchmark fights over, one per slot; an order once provisioned
 * is replaced in its slot by a fresh one ({@link HotOrderBenchmark}, {@link HotLock}).
 */
final class HotSlots {

  private final AtomicReferenceArray<OrderSnapshot> slots;
  private final AtomicLong generation = new AtomicLong();
  private final String prefix;

  /** {@code count} fresh orders, their session ids starting with {@code prefix}. */
  HotSlots(String prefix, int count) {
    this.prefix = prefix;
    slots = new AtomicReferenceArray<>(count);
    for (int i = 0; i < count; i++) {
      slots.set(i, fresh());
    }
  }

  private OrderSnapshot fresh() {
    return Orders.snapshot(prefix + generation.getAndIncrement());
  }

  /** The order in {@code slot} now. */
  OrderSnapshot at(int slot) {
    return slots.get(slot);
  }

  /** Puts a fresh order in the slot of {@code done}, unless another thread did already. */
  void replace(int slot, OrderSnapshot done) {
    if (slots.get(slot) == done) {
      slots.compareAndSet(slot, done, fresh());
    }
  }
}
