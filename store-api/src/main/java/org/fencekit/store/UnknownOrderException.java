package org.fencekit.store;

/**
 * A complete, fail or extend named an order the store has never seen. Nothing was written. Only
 * {@link OrderStore#claim} creates orders.
 */
public class UnknownOrderException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  private final String sessionId;

  /**
   * @param backend the store's backend, for the message
   * @param operation the operation that was asked for
   * @param sessionId the order's key
   */
  public UnknownOrderException(String backend, String operation, String sessionId) {
    super(
        String.format(
            "%s store: cannot %s order '%s': no such order (nothing was written). Only claim"
                + " creates an order: claim it first, and settle it with the token that claim"
                + " returned.",
            backend, operation, sessionId));
    this.sessionId = sessionId;
  }

  /** The order's key. */
  public String sessionId() {
    return sessionId;
  }
}
