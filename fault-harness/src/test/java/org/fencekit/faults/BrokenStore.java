package org.fencekit.faults;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.fencekit.history.ManualClock;
import org.fencekit.store.ClaimId;
import org.fencekit.store.ClaimResult;
import org.fencekit.store.Item;
import org.fencekit.store.OrderRecord;
import org.fencekit.store.OrderSnapshot;
import org.fencekit.store.OrderStatus;
import org.fencekit.store.OrderStore;
import org.fencekit.store.Orphan;
import org.fencekit.store.StoreUnavailableException;
import org.fencekit.store.WriteResult;
import org.fencekit.store.memory.MemoryOrderStore;

/**
 * A memory store that breaks one rule once its fault has been injected ({@link #breakNow()}), so
 * the harness's check for that rule must fire.
 */
final class BrokenStore implements OrderStore {

  /** The ways to break, each named for the check that must catch it. */
  enum Break {
    /** (a) answers a complete Written but never writes it. */
    WRITTEN_NOT_KEPT,
    /** (b) answers a stale complete Superseded, then writes its item over the owner's claim. */
    SUPERSEDED_LANDS,
    /** (c) writes a fail or complete, then says nothing was written. */
    REFUSED_LANDS,
    /** (d) forgets every order (a silent restart): fences start again at 1. */
    FENCES_RESTART,
    /** (e) answers a stale complete Superseded without recording its orphan. */
    ORPHAN_DROPPED,
    /** (f) stays down after the fault. */
    STAYS_DOWN,
    /** (g) throws an undocumented exception now and then. */
    UNDOCUMENTED_EXCEPTION,
    /** Nothing: a healthy store, which must show no violation. */
    NONE
  }

  private final Break mode;
  private final ManualClock clock;
  private final AtomicReference<OrderStore> delegate;
  private final AtomicBoolean broken = new AtomicBoolean();
  private final AtomicInteger calls = new AtomicInteger();

  BrokenStore(Break mode, ManualClock clock) {
    this.mode = mode;
    this.clock = clock;
    this.delegate = new AtomicReference<>(new MemoryOrderStore(clock));
  }

  /** The fault: from now on the store breaks its rule. */
  int breakNow() {
    broken.set(true);
    if (mode == Break.FENCES_RESTART) {
      delegate.set(new MemoryOrderStore(clock));
    }
    return 1;
  }

  private OrderStore store() {
    if (broken.get() && mode == Break.STAYS_DOWN) {
      throw new StoreUnavailableException("broken", "call", null, true, "down for good", null);
    }
    if (broken.get() && mode == Break.UNDOCUMENTED_EXCEPTION && calls.incrementAndGet() % 10 == 0) {
      throw new IllegalStateException("a driver bug");
    }
    return delegate.get();
  }

  private boolean breaking(Break which) {
    return broken.get() && mode == which;
  }

  @Override
  public ClaimResult claim(OrderSnapshot snapshot, Duration lease) {
    return store().claim(snapshot, lease);
  }

  @Override
  public WriteResult complete(String sessionId, ClaimId claimId, Item item) {
    OrderStore store = store();
    Optional<OrderRecord> before = store.get(sessionId);
    boolean current = before.isPresent() && claimId.equals(before.get().claimId());
    if (breaking(Break.WRITTEN_NOT_KEPT) && current) {
      OrderRecord was = before.get();
      return new WriteResult.Written(
          new OrderRecord(
              was.snapshot(),
              OrderStatus.PROVISIONED,
              item,
              was.lastError(),
              null,
              null,
              null,
              was.fence(),
              claimId,
              Instant.now(clock)));
    }
    if (breaking(Break.ORPHAN_DROPPED) && before.isPresent() && !current) {
      return new WriteResult.Superseded(before.get());
    }
    WriteResult result = store.complete(sessionId, claimId, item);
    if (breaking(Break.SUPERSEDED_LANDS)
        && result instanceof WriteResult.Superseded superseded
        && superseded.current().status() != OrderStatus.PROVISIONED) {
      ClaimId owner = superseded.current().claimId();
      if (owner == null
          && store.claim(superseded.current().snapshot(), Duration.ofSeconds(1))
              instanceof ClaimResult.Claimed claimed) {
        owner = claimed.claimId();
      }
      if (owner != null) {
        store.complete(sessionId, owner, item);
      }
    }
    if (breaking(Break.REFUSED_LANDS) && result instanceof WriteResult.Written) {
      throw new StoreUnavailableException("broken", "complete", sessionId, false, "lied", null);
    }
    return result;
  }

  @Override
  public WriteResult fail(String sessionId, ClaimId claimId, String error) {
    WriteResult result = store().fail(sessionId, claimId, error);
    if (breaking(Break.REFUSED_LANDS) && result instanceof WriteResult.Written) {
      throw new StoreUnavailableException("broken", "fail", sessionId, false, "lied", null);
    }
    return result;
  }

  @Override
  public WriteResult extend(String sessionId, ClaimId claimId, Duration lease) {
    return store().extend(sessionId, claimId, lease);
  }

  @Override
  public Optional<OrderRecord> get(String sessionId) {
    return store().get(sessionId);
  }

  @Override
  public List<Orphan> orphans(String sessionId) {
    return store().orphans(sessionId);
  }

  @Override
  public void close() {
    delegate.get().close();
  }
}
