package org.fencekit.history;

/** The calls of an {@link org.fencekit.store.OrderStore} a {@link History} records. */
public enum Operation {
  /** {@code claim(snapshot, lease)}. */
  CLAIM("claim"),
  /** {@code complete(sessionId, claimId, item)}. */
  COMPLETE("complete"),
  /** {@code fail(sessionId, claimId, error)}. */
  FAIL("fail"),
  /** {@code extend(sessionId, claimId, lease)}. */
  EXTEND("extend"),
  /** {@code get(sessionId)}. */
  GET("get"),
  /** {@code orphans(sessionId)}. */
  ORPHANS("orphans");

  private final String label;

  Operation(String label) {
    this.label = label;
  }

  /** The method's name: "claim", "complete", ... */
  public String label() {
    return label;
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
