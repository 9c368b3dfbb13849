package org.fencekit.store;

import java.time.Instant;
import java.util.Objects;
import org.fencekit.store.spi.Validate;

/**
 * An item bought by an attempt that no longer owned the order when it tried to complete it.
 *
 * <p>This is real money: the provider was paid and nobody was shown the goods. A store keeps every
 * orphan, once per (claimId, providerOrderId), and never overwrites one, until someone reconciles
 * it (refunds or voids the purchase).
 *
 * @param sessionId the order the purchase was made for
 * @param claimId the superseded token the complete carried
 * @param item what the superseded attempt bought
 * @param recordedAt when the store first rejected that complete
 */
public record Orphan(String sessionId, ClaimId claimId, Item item, Instant recordedAt) {

  /** Checks that every field is present. */
  public Orphan {
    Validate.sessionId(sessionId);
    Objects.requireNonNull(claimId, "claimId");
    Objects.requireNonNull(item, "item");
    Objects.requireNonNull(recordedAt, "recordedAt");
  }
}
