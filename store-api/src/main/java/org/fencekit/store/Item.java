package org.fencekit.store;

import org.fencekit.store.spi.Validate;

/**
 * What the provider delivered for an order.
 *
 * @param providerOrderId the provider's id for the purchase; non-blank, at most 255 characters.
 *     Together with the claim that bought it, it identifies a purchase: an orphan is recorded once
 *     per (claimId, providerOrderId).
 * @param payload the delivered goods as an opaque string (an eSIM activation code, a licence key),
 *     or {@code null}; at most {@value Validate#MAX_PAYLOAD_LENGTH} characters
 */
public record Item(String providerOrderId, String payload) {

  /** Validates both fields. */
  public Item {
    Validate.text("providerOrderId", providerOrderId, Validate.MAX_ID_LENGTH);
    if (payload != null) {
      Validate.content("payload", payload, Validate.MAX_PAYLOAD_LENGTH);
    }
  }
}
