package org.fencekit.store;

import org.fencekit.store.spi.Validate;

/**
 * The identity of an {@link Orphan}: the order, the superseded token that bought it and the
 * provider's id for the purchase. A store records an orphan once per identity, however often its
 * complete is retried, so an identity names at most one orphan.
 *
 * @param sessionId the order the purchase was made for
 * @param claimId the superseded token the complete carried
 * @param providerOrderId the provider's id for the purchase
 */
public record OrphanId(String sessionId, ClaimId claimId, String providerOrderId) {

  /** Validates every part, naming the one that is wrong. */
  public OrphanId {
    Validate.sessionId(sessionId);
    Validate.notNull("claimId", claimId);
    Validate.text("providerOrderId", providerOrderId, Validate.MAX_ID_LENGTH);
  }

  /** The identity of {@code orphan}. */
  public static OrphanId of(Orphan orphan) {
    Validate.notNull("orphan", orphan);
    return new OrphanId(orphan.sessionId(), orphan.claimId(), orphan.item().providerOrderId());
  }

  @Override
  public String toString() {
    return "orphan of order '%s' bought by %s as '%s'"
        .formatted(sessionId, claimId, providerOrderId);
  }
}
