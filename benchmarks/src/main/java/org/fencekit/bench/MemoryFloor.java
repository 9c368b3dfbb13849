package org.fencekit.bench;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListSet;
import org.fencekit.store.ClaimId;

/**
 * The floor of the memory store: the minimal correct fenced compare-and-set on a {@link
 * ConcurrentHashMap} that keeps what the contract requires of a listing, an exact index of the held
 * claims by lease end. A claim takes a free order (new, or its lease over and not settled) with the
 * next fence and a fresh nonce; a complete settles the order only if its fence and nonce still hold
 * it. Each {@code compute} moves the order's key in the index of held claims, so the index never
 * lacks a claim the map shows; {@link #stuck} walks it. Nothing else: no state machine, no
 * validation, no orphans, failures or mismatches.
 */
final class MemoryFloor {

  /** An order: its fence, the nonce of the claim that holds it, when that lease ends, settled. */
  record Row(long fence, String nonce, long leaseEnd, boolean settled) {}

  /** A held claim's key in the index. */
  private record Held(long leaseEnd, String sessionId) {}

  private final ConcurrentHashMap<String, Row> orders = new ConcurrentHashMap<>();
  private final ConcurrentSkipListSet<Held> held =
      new ConcurrentSkipListSet<>(
          Comparator.comparingLong(Held::leaseEnd).thenComparing(Held::sessionId));

  /**
   * Claims {@code sessionId} at {@code now} for {@code leaseMillis}: the row it now holds, or null
   * if another claim holds it or it is settled.
   */
  Row claim(String sessionId, long now, long leaseMillis) {
    String nonce = ClaimId.newNonce();
    Row row =
        orders.compute(
            sessionId,
            (key, before) -> {
              if (before != null && (before.settled() || before.leaseEnd() > now)) {
                return before;
              }
              if (before != null) {
                held.remove(new Held(before.leaseEnd(), key));
              }
              held.add(new Held(now + leaseMillis, key));
              return new Row(
                  before == null ? 1 : before.fence() + 1, nonce, now + leaseMillis, false);
            });
    return row.nonce().equals(nonce) ? row : null;
  }

  /** Settles {@code sessionId} if {@code claim} still holds it; whether it did. */
  boolean complete(String sessionId, Row claim) {
    Row row =
        orders.computeIfPresent(
            sessionId,
            (key, before) -> {
              if (before.settled()
                  || before.fence() != claim.fence()
                  || !before.nonce().equals(claim.nonce())) {
                return before;
              }
              held.remove(new Held(before.leaseEnd(), key));
              return new Row(before.fence(), before.nonce(), 0, true);
            });
    return row != null && row.settled() && row.nonce().equals(claim.nonce());
  }

  /** Claims the fresh order {@code sessionId} and completes it, as the benchmarks' operation. */
  void claimComplete(String sessionId) {
    Row claim =
        claim(sessionId, System.currentTimeMillis(), ClaimCompleteBenchmark.LEASE.toMillis());
    if (claim == null) {
      throw new IllegalStateException("fresh order " + sessionId + " was not claimed");
    }
    if (!complete(sessionId, claim)) {
      throw new IllegalStateException("the owner's complete of " + sessionId + " was refused");
    }
  }

  /**
   * The held claims whose lease ended at or before {@code now}, by lease end, at most {@code
   * limit}: from the index, each checked against its order (a claim taken or settled since the
   * index was read is left out).
   */
  List<String> stuck(long now, int limit) {
    List<String> found = new ArrayList<>();
    for (Held key : held.headSet(new Held(now + 1, ""), false)) {
      if (found.size() == limit) {
        break;
      }
      Row row = orders.get(key.sessionId());
      if (row != null && !row.settled() && row.leaseEnd() == key.leaseEnd()) {
        found.add(key.sessionId());
      }
    }
    return found;
  }

  /** The number of keys in the index of held claims. */
  int heldCount() {
    return held.size();
  }
}
