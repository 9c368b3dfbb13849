package org.fencekit.history;

/** What one recorded call answered, by kind: the columns of a run's summary. */
public enum Answer {
  /** claim answered {@code Claimed}. */
  CLAIMED("claimed"),
  /** claim answered {@code Provisioned}. */
  PROVISIONED("provisioned"),
  /** claim answered {@code InFlight}. */
  IN_FLIGHT("inflight"),
  /**
   * claim answered {@code Mismatch}: another order under the key; nothing was written (the checks
   * treat it like InFlight: no claim, no write of the order).
   */
  MISMATCH("mismatch"),
  /** complete, fail or extend answered {@code Written}. */
  WRITTEN("written"),
  /** complete, fail or extend answered {@code Superseded}. */
  SUPERSEDED("superseded"),
  /** get answered (an order or empty), or orphans answered. */
  READ("read"),
  /** {@code UnknownOrderException}: the order does not exist (after a backend lost its data). */
  UNKNOWN_ORDER("unknown-order"),
  /** {@code StoreUnavailableException} with {@code outcomeUnknown() == true}. */
  UNAVAILABLE_UNKNOWN("unavailable-outcome-unknown"),
  /** {@code StoreUnavailableException} with {@code outcomeUnknown() == false}: nothing written. */
  UNAVAILABLE_NOTHING_WRITTEN("unavailable-nothing-written"),
  /** Any other exception: not one the contract documents. */
  UNDOCUMENTED("undocumented-exception");

  private final String label;

  Answer(String label) {
    this.label = label;
  }

  /** The answer's name in a summary line. */
  public String label() {
    return label;
  }

  /** Whether the call reached a decision (any answer but an exception from the backend). */
  public boolean succeeded() {
    return this != UNAVAILABLE_UNKNOWN
        && this != UNAVAILABLE_NOTHING_WRITTEN
        && this != UNDOCUMENTED;
  }
}
