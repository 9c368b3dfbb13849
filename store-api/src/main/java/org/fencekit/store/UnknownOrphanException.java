package org.fencekit.store;

/**
 * {@link OrderStoreAdmin#reconcile} named an orphan the store has not recorded. Nothing was
 * written.
 */
public class UnknownOrphanException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  private final transient OrphanId orphanId;

  /**
   * @param backend the store's backend, for the message
   * @param orphanId the identity asked for
   */
  public UnknownOrphanException(String backend, OrphanId orphanId) {
    super(
        backend
            + " store: cannot reconcile the "
            + orphanId
            + ": no such orphan (nothing was written). Check the session id, the token"
            + " (fence:nonce) and the provider order id against unreconciledOrphans or orphans(sessionId).");
    this.orphanId = orphanId;
  }

  /** The identity asked for. */
  public OrphanId orphanId() {
    return orphanId;
  }
}
