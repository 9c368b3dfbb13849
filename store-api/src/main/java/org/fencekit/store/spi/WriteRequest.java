package org.fencekit.store.spi;

import java.time.Duration;
import org.fencekit.store.ClaimId;
import org.fencekit.store.Item;

/**
 * A validated complete, fail or extend. Building one checks every argument, in the order the store
 * method takes them, so a store validates by building the request before it touches its backend.
 */
public sealed interface WriteRequest {

  /** The order's key. */
  String sessionId();

  /** The token presented. */
  ClaimId claimId();

  /** The operation's name: "complete", "fail" or "extend". */
  default String operation() {
    return this instanceof Complete ? "complete" : this instanceof Fail ? "fail" : "extend";
  }

  /**
   * Settle as provisioned.
   *
   * @param sessionId the order's key
   * @param claimId the token presented
   * @param item what the provider delivered
   */
  record Complete(String sessionId, ClaimId claimId, Item item) implements WriteRequest {
    /** Validates every argument. */
    public Complete {
      Validate.sessionId(sessionId);
      Validate.notNull("claimId", claimId);
      Validate.notNull("item", item);
    }
  }

  /**
   * Settle as failed.
   *
   * @param sessionId the order's key
   * @param claimId the token presented
   * @param error what went wrong
   */
  record Fail(String sessionId, ClaimId claimId, String error) implements WriteRequest {
    /** Validates every argument. */
    public Fail {
      Validate.sessionId(sessionId);
      Validate.notNull("claimId", claimId);
      Validate.error(error);
    }
  }

  /**
   * Extend the current claim's lease.
   *
   * @param sessionId the order's key
   * @param claimId the token presented
   * @param lease the new lease, from now
   */
  record Extend(String sessionId, ClaimId claimId, Duration lease) implements WriteRequest {
    /** Validates every argument. */
    public Extend {
      Validate.sessionId(sessionId);
      Validate.notNull("claimId", claimId);
      Validate.lease(lease);
    }
  }
}
