package org.fencekit.spring;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.fencekit.fulfilment.Provider;
import org.fencekit.fulfilment.Purchase;
import org.fencekit.server.HeldPurchase;
import org.fencekit.store.Item;

/**
 * A provider that counts its purchases by session; it can take a while to buy, or hold one
 * session's purchase until a test releases it.
 */
final class RecordingProvider implements Provider {

  final Map<String, AtomicInteger> bySession = new ConcurrentHashMap<>();
  final AtomicInteger all = new AtomicInteger();
  volatile long millis;
  volatile HeldPurchase held;

  @Override
  public Item buy(Purchase purchase) throws InterruptedException {
    int n = all.incrementAndGet();
    bySession.computeIfAbsent(purchase.sessionId(), s -> new AtomicInteger()).incrementAndGet();
    HeldPurchase holding = held;
    if (holding != null) {
      holding.enter(purchase.sessionId());
    }
    if (millis > 0) {
      Thread.sleep(millis); // the provider's own latency, to make the race overlap
    }
    return new Item("prov-" + n, "LPA:1$test$" + n);
  }

  int purchases(String sessionId) {
    AtomicInteger count = bySession.get(sessionId);
    return count == null ? 0 : count.get();
  }
}
