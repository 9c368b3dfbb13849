package org.fencekit.store;

import org.fencekit.store.spi.Validate;

/**
 * What the Checkout session said when the order was first claimed.
 *
 * <p>The store keeps the first snapshot it is given for a session; a later claim of the same order
 * (equal in every {@link OrderField}) does not overwrite it, and a claim that differs in one is
 * another order under the same key: it changes nothing and answers {@link ClaimResult.Mismatch}.
 * Every field is validated here, so an invalid snapshot cannot be built and never reaches a
 * backend.
 *
 * @param sessionId the Checkout session id, the order's key (see {@link Validate#sessionId})
 * @param productId what was bought; non-blank, at most 255 characters
 * @param quantity how many; at least 1
 * @param customerEmail the customer's email as Checkout reported it, or {@code null}
 * @param amountTotal the amount charged in the currency's minor unit (cents); at least 0
 * @param currency the ISO 4217 currency code as Checkout reported it: three ASCII letters
 */
public record OrderSnapshot(
    String sessionId,
    String productId,
    int quantity,
    String customerEmail,
    long amountTotal,
    String currency) {

  /** Validates every field; see the parameter descriptions for the rules. */
  public OrderSnapshot {
    Validate.sessionId(sessionId);
    Validate.text("productId", productId, Validate.MAX_ID_LENGTH);
    if (quantity < 1) {
      throw new IllegalArgumentException(
          "quantity must be at least 1, got " + quantity + " for order '" + sessionId + "'");
    }
    if (customerEmail != null) {
      Validate.text("customerEmail", customerEmail, Validate.MAX_EMAIL_LENGTH);
    }
    if (amountTotal < 0) {
      throw new IllegalArgumentException(
          "amountTotal must be at least 0 (minor units), got %s for order '%s'"
              .formatted(amountTotal, sessionId));
    }
    Validate.currency(currency);
  }
}
