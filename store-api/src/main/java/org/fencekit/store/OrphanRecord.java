package org.fencekit.store;

import java.time.Instant;
import org.fencekit.store.spi.Validate;

/**
 * An orphan as a store holds it for its operators: the purchase, and whether someone reconciled it
 * (refunded it, delivered it by hand, ...). Reconciling never deletes an orphan and never changes
 * its item or token; it only adds the note and the instant.
 *
 * @param orphan the purchase a superseded attempt made
 * @param note what the operator did about it, or {@code null} while it is not reconciled
 * @param reconciledAt when it was reconciled, or {@code null} while it is not
 */
public record OrphanRecord(Orphan orphan, String note, Instant reconciledAt) {

  /**
   * Checks that the orphan is present and that the note and the instant are both set or both null.
   */
  public OrphanRecord {
    Validate.notNull("orphan", orphan);
    if ((note == null) != (reconciledAt == null)) {
      throw new IllegalArgumentException(
          "note and reconciledAt must be both set or both null; %s has note %s and reconciledAt %s"
              .formatted(
                  OrphanId.of(orphan), note == null ? "null" : Validate.quote(note), reconciledAt));
    }
  }

  /** An orphan nobody has reconciled yet. */
  public static OrphanRecord unreconciled(Orphan orphan) {
    return new OrphanRecord(orphan, null, null);
  }

  /** Its identity. */
  public OrphanId id() {
    return OrphanId.of(orphan);
  }

  /** Whether someone reconciled it. */
  public boolean reconciled() {
    return reconciledAt != null;
  }
}
