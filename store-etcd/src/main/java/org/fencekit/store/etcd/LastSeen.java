package org.fencekit.store.etcd;

import java.util.LinkedHashMap;
import java.util.Map;
import org.fencekit.store.OrderRecord;

/**
 * What this store last saw of its most recent orders: the record and its {@code mod_revision}, as
 * its own transaction wrote it or a read returned it (at most {@value #CAPACITY} orders, the least
 * recently used forgotten first). A write may be decided on it without reading first: its
 * transaction compares that revision, so it lands only if the order is still exactly that, and a
 * stale guess costs the read the transaction's Else returns anyway. A decision that writes nothing
 * is never answered from it.
 */
final class LastSeen {

  static final int CAPACITY = 4096;

  /** An order as last seen: its record ({@code null}: none) and its {@code mod_revision}. */
  record Seen(OrderRecord record, long revision) {}

  private final Map<String, Seen> seen =
      new LinkedHashMap<>(64, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Seen> eldest) {
          return size() > CAPACITY;
        }
      };

  synchronized Seen get(String sessionId) {
    return seen.get(sessionId);
  }

  synchronized void put(String sessionId, OrderRecord record, long revision) {
    if (record == null) {
      seen.remove(sessionId);
    } else {
      seen.put(sessionId, new Seen(record, revision));
    }
  }
}
