package org.fencekit.store;

import org.fencekit.store.spi.Validate;

/**
 * The identity of a {@link Mismatch}: the order and the nonce the mismatched claim drew (the one
 * its token would have carried, had it been granted). Every mismatched claim draws its own, so each
 * one is recorded once, under its own identity.
 *
 * @param sessionId the order the claim was for
 * @param nonce 32 lowercase hexadecimal digits, as {@link ClaimId#newNonce()} draws them
 */
public record MismatchId(String sessionId, String nonce) {

  /** Validates both parts, naming the one that is wrong. */
  public MismatchId {
    Validate.sessionId(sessionId);
    Validate.notNull("nonce", nonce);
    if (!ClaimId.isNonce(nonce)) {
      throw new IllegalArgumentException(
          "nonce must be 32 lowercase hex digits (128 bits), got " + Validate.quote(nonce));
    }
  }

  @Override
  public String toString() {
    return "mismatch " + nonce + " of order '" + sessionId + "'";
  }
}
