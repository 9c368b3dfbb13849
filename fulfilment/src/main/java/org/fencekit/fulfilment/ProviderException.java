package org.fencekit.fulfilment;

/**
 * A provider call failed. {@link #nothingBought()} says whether the purchase certainly did not
 * happen (the provider refused it: out of stock, a validation error) or whether the outcome is
 * unknown (a timeout, a lost connection, a 5xx). The handler fails the order either way so the next
 * delivery may try again, and the retry's purchase carries the same idempotency key, so a provider
 * that honours it hands back what it may have bought.
 */
public class ProviderException extends Exception {

  private static final long serialVersionUID = 1L;

  private final boolean nothingBought;

  /**
   * @param message what went wrong, kept as the order's last error
   * @param nothingBought whether the purchase certainly did not happen
   * @param cause the underlying failure, or {@code null}
   */
  public ProviderException(String message, boolean nothingBought, Throwable cause) {
    super(message, cause);
    this.nothingBought = nothingBought;
  }

  /** The provider refused the purchase: certainly nothing was bought. */
  public static ProviderException nothingBought(String message) {
    return new ProviderException(message, true, null);
  }

  /** The call failed in a way that may have bought the item (a timeout, a lost answer). */
  public static ProviderException outcomeUnknown(String message, Throwable cause) {
    return new ProviderException(message, false, cause);
  }

  /** Whether the purchase certainly did not happen. */
  public boolean nothingBought() {
    return nothingBought;
  }
}
