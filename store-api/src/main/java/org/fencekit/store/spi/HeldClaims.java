package org.fencekit.store.spi;

import java.util.LinkedHashMap;
import java.util.Map;
import org.fencekit.store.ClaimId;
import org.fencekit.store.OrderRecord;

/**
 * The orders as one store's own claims left them, by session id, so that a settle or extend by the
 * same token can be answered from what the store already knows plus what it changed, instead of
 * reading the order back (Redis: the script answers two values, not the order; MySQL: no read after
 * the complete's {@code UPDATE}, which has no {@code RETURNING}).
 *
 * <p>Why that is exact: while a claim is current, only its own extend changes the order, and only
 * the lease and update time, which each later write sets anew; the snapshot, fence, last error and
 * failure count a complete or fail keeps change only when a claim ends or a new one begins, which
 * changes the token. So the record a claim answered is the one each write by that token starts from
 * ({@link OrderStateMachine#write}), provided the write itself checks, atomically, that the token
 * is still the order's current claim and not the one that settled it. A store that uses a record
 * here must make that check, and fall back to reading the order when it fails.
 *
 * <p>Bounded: at most {@value #CAPACITY} claims, the oldest forgotten first (a claim whose settle
 * never comes through this store, a worker that gave up). A forgotten claim costs only the lean
 * answer: its settle reads the order, as a settle by another store's claim does. Thread-safe.
 */
public final class HeldClaims {

  /** Claims remembered at most: more than a store's connections can have in flight. */
  public static final int CAPACITY = 4096;

  private final Map<String, OrderRecord> records =
      new LinkedHashMap<>(64, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, OrderRecord> eldest) {
          return size() > CAPACITY;
        }
      };

  /** Remembers the order as a claim of this store left it ({@code record.claimId()} non-null). */
  public synchronized void put(OrderRecord record) {
    records.put(record.sessionId(), record);
  }

  /** The order as {@code claimId}'s claim left it, or {@code null}; an extend keeps it. */
  public synchronized OrderRecord get(String sessionId, ClaimId claimId) {
    OrderRecord record = records.get(sessionId);
    return record != null && claimId.equals(record.claimId()) ? record : null;
  }

  /**
   * Forgets the order's claim and returns it if it is {@code claimId}'s, else {@code null}: a
   * settle is answered from it at most once.
   */
  public synchronized OrderRecord take(String sessionId, ClaimId claimId) {
    OrderRecord record = records.remove(sessionId);
    return record != null && claimId.equals(record.claimId()) ? record : null;
  }
}
