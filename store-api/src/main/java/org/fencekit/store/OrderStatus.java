package org.fencekit.store;

/** Where an order stands. */
public enum OrderStatus {
  /** Claimed by an attempt (or re-claimed after a failure or an expired lease), not yet settled. */
  PENDING,
  /** Settled by a successful purchase. Terminal: never claimable again, never changed. */
  PROVISIONED,
  /** The last attempt failed. Claimable again by the next attempt. */
  FAILED
}
