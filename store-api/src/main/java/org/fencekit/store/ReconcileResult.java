package org.fencekit.store;

import org.fencekit.store.spi.Validate;

/**
 * What {@link OrderStoreAdmin#reconcile} did. Both answers carry the orphan as the store holds it
 * after the call.
 */
public sealed interface ReconcileResult {

  /** The orphan as the store holds it after the call. */
  OrphanRecord orphan();

  /**
   * The orphan is reconciled with the note asked for: by this call, or already by an earlier call
   * with an equal note (the same mark again answers the same, with the instant first recorded).
   *
   * @param orphan the orphan with its note and instant
   */
  record Reconciled(OrphanRecord orphan) implements ReconcileResult {
    /** Checks the orphan is present and reconciled. */
    public Reconciled {
      requireReconciled(orphan);
    }
  }

  /**
   * The orphan was reconciled before with another note; nothing changed. The recorded note and
   * instant are in {@link #orphan()}: look at them before marking it again by other means.
   *
   * @param orphan the orphan with the note and instant recorded first
   */
  record AlreadyReconciled(OrphanRecord orphan) implements ReconcileResult {
    /** Checks the orphan is present and reconciled. */
    public AlreadyReconciled {
      requireReconciled(orphan);
    }
  }

  private static void requireReconciled(OrphanRecord orphan) {
    Validate.notNull("orphan", orphan);
    if (!orphan.reconciled()) {
      throw new IllegalArgumentException(
          "a reconcile answer carries a reconciled orphan, got " + orphan.id() + " unreconciled");
    }
  }
}
