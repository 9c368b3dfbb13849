package org.fencekit.store;

/**
 * The backend could not be reached, or did not answer in time.
 *
 * <p>For {@code claim}, {@code complete}, {@code fail} and {@code extend} the outcome may then be
 * unknown: the write may have landed before the connection was lost. {@link #outcomeUnknown()} says
 * so. Retrying the same call is safe: a settle that had landed answers {@code Written} again, and a
 * claim that had landed answers {@code InFlight} until its lease runs out. The message names the
 * backend and the operation and never contains a password.
 */
public class StoreUnavailableException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  private final String backend;
  private final String operation;
  private final boolean outcomeUnknown;

  /**
   * @param backend the store's backend ("sqlite", "postgres", "redis", ...)
   * @param operation the operation that failed ("claim", "complete", ...)
   * @param sessionId the order it was about, or {@code null}
   * @param outcomeUnknown whether a write may have landed
   * @param detail what went wrong, without credentials
   * @param cause the driver's exception, or {@code null}
   */
  public StoreUnavailableException(
      String backend,
      String operation,
      String sessionId,
      boolean outcomeUnknown,
      String detail,
      Throwable cause) {
    super(message(backend, operation, sessionId, outcomeUnknown, detail), cause);
    this.backend = backend;
    this.operation = operation;
    this.outcomeUnknown = outcomeUnknown;
  }

  private static String message(
      String backend, String operation, String sessionId, boolean outcomeUnknown, String detail) {
    String target = sessionId == null ? "" : " of order '" + sessionId + "'";
    String outcome =
        outcomeUnknown
            ? " The outcome is unknown: the write may or may not have landed. Retry the same call"
                + " with the same token; a settle that had landed answers Written again."
            : " Nothing was written.";
    return backend + " store: " + operation + target + " failed: " + detail + "." + outcome;
  }

  /** The store's backend. */
  public String backend() {
    return backend;
  }

  /** The operation that failed. */
  public String operation() {
    return operation;
  }

  /** Whether a write may have landed before the failure. */
  public boolean outcomeUnknown() {
    return outcomeUnknown;
  }
}
