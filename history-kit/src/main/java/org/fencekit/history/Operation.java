package org.fencekit.history;

import java.util.Locale;

/** The calls of an {@link org.fencekit.store.OrderStore} a {@link History} records. */
public enum Operation {
  /** {@code claim(snapshot, lease)}. */
  CLAIM,
  /** {@code complete(sessionId, claimId, item)}. */
  COMPLETE,
  /** {@code fail(sessionId, claimId, error)}. */
  FAIL,
  /** {@code extend(sessionId, claimId, lease)}. */
  EXTEND,
  /** {@code get(sessionId)}. */
  GET,
  /** {@code orphans(sessionId)}. */
  ORPHANS;

  /** The method's name: "claim", "complete", ... */
  public String label() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** Whether it settles the order: complete or fail. */
  public boolean settles() {
    return this == COMPLETE || this == FAIL;
  }

  /** Whether it presents a claim id: complete, fail or extend. */
  public boolean presents() {
    return this == COMPLETE || this == FAIL || this == EXTEND;
  }
}
