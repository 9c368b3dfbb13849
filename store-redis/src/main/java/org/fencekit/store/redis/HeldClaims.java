package org.fencekit.store.redis;

import java.util.LinkedHashMap;
import java.util.Map;
import org.fencekit.store.ClaimId;
import org.fencekit.store.OrderRecord;

/**
 * The orders as this store's own claims left them, by session id, so that an extend, complete or
 * fail by the same token can be answered from what the store already knows plus what changed: the
 * script then answers two values instead of the whole order. While a claim is current only its own
 * extend changes the order (its lease and update time, which each later write sets anew), so the
 * record a claim answered is the one each of its writes starts from ({@code
 * OrderStateMachine.write}); the script checks that the claim is still current before it writes,
 * and answers the whole order when it is not. A record is used only for its own token's write and
 * only when the script finds that token current.
 *
 * <p>Bounded: at most {@value #CAPACITY} claims, the oldest forgotten first (a claim whose complete
 * never comes through this store, a worker that gave up). A forgotten claim costs only the lean
 * answer: its complete reads the whole order, as a complete by another store's claim does.
 */
final class HeldClaims {

  /** Claims remembered at most: more than the store's 32 connections can have in flight. */
  static final int CAPACITY = 4096;

  private final Map<String, OrderRecord> records =
      new LinkedHashMap<>(64, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, OrderRecord> eldest) {
          return size() > CAPACITY;
        }
      };

  /** Remembers the order as a claim of this store left it ({@code record.claimId()} non-null). */
  synchronized void put(OrderRecord record) {
    records.put(record.sessionId(), record);
  }

  /** The order as {@code claimId}'s claim left it, or {@code null}; an extend keeps it. */
  synchronized OrderRecord get(String sessionId, ClaimId claimId) {
    OrderRecord record = records.get(sessionId);
    return record != null && claimId.equals(record.claimId()) ? record : null;
  }

  /**
   * Forgets the order's claim and returns it if it is {@code claimId}'s, else {@code null}: a
   * settle is answered from it at most once.
   */
  synchronized OrderRecord take(String sessionId, ClaimId claimId) {
    OrderRecord record = records.remove(sessionId);
    return record != null && claimId.equals(record.claimId()) ? record : null;
  }
}
