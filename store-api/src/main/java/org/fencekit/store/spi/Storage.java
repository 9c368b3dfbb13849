package org.fencekit.store.spi;

import java.util.List;
import java.util.Optional;
import org.fencekit.store.Mismatch;
import org.fencekit.store.OrderRecord;
import org.fencekit.store.Orphan;
import org.fencekit.store.StoreUnavailableException;

/**
 * The storage-facing piece of a store: it reads and writes one order atomically and decides
 * nothing. {@link FencedOrderStore} does the deciding (validation, the state machine, replays,
 * races), so a backend implements only this ({@linkplain org.fencekit.store.spi which of fencekit's
 * stores do}).
 *
 * <p>An implementation must guarantee that while {@link #atomically} runs its work for an order, no
 * other caller, in this process or another, reads that order inside its own {@code atomically} or
 * changes it; and that the work's writes land all together or not at all.
 */
public interface Storage extends AutoCloseable {

  /** The backend's name for messages, such as "sqlite" or "postgres". */
  String backend();

  /**
   * Runs {@code work} on one order in one atomic step (a transaction holding the order's lock),
   * commits what it wrote and returns its result. If {@code work} throws, nothing it wrote may land
   * and the exception propagates as it is.
   *
   * @param operation the store operation, for messages ("claim", "complete", ...)
   * @param sessionId the order's key
   * @throws StoreUnavailableException if the backend fails
   */
  <T> T atomically(String operation, String sessionId, Work<T> work);

  /** The order as last committed, or empty. */
  Optional<OrderRecord> read(String sessionId);

  /** The order's orphans in the order they were recorded. */
  List<Orphan> orphans(String sessionId);

  /** Releases the storage's resources. Idempotent. */
  @Override
  void close();

  /**
   * Work on one order inside {@link #atomically}.
   *
   * @param <T> what the work returns
   */
  @FunctionalInterface
  interface Work<T> {
    /** Does the work through {@code order}. */
    T run(LockedOrder order);
  }

  /** One order inside an atomic step. */
  interface LockedOrder {

    /** The order as stored, read under the step's lock; empty if there is none. */
    Optional<OrderRecord> current();

    /**
     * The time to decide at, when the storage reads it from its server in this step (read with
     * {@link #current()}, after the lock is held, in the same statement: no extra round trip), at
     * millisecond precision; empty (the default) to use the store's {@link java.time.Clock}.
     */
    default Optional<java.time.Instant> now() {
      return Optional.empty();
    }

    /**
     * Creates the order. Returns {@code false} and writes nothing if another caller created it
     * first (a backend whose lock cannot cover a row that does not exist yet, such as {@code INSERT
     * ... ON CONFLICT DO NOTHING}); the caller then decides again.
     */
    boolean insert(OrderRecord record);

    /** Replaces the order read by {@link #current()}. */
    void update(OrderRecord record);

    /**
     * Records an orphan, unless one with the same claimId and providerOrderId is recorded for this
     * order already (a retried complete): the first one is kept.
     */
    void addOrphan(Orphan orphan);

    /**
     * Records a claim that offered a different order ({@link
     * org.fencekit.store.ClaimResult.Mismatch}): always a new row, since every mismatched claim has
     * an identity of its own. It lands with the step or not at all, like every write of the step.
     */
    void addMismatch(Mismatch mismatch);
  }
}
