package org.fencekit.fulfilment;

import java.util.Objects;
import org.fencekit.store.ClaimId;
import org.fencekit.store.Item;
import org.fencekit.store.OrderRecord;

/**
 * A purchase made by an attempt that no longer owned its order: the store rejected its complete and
 * kept the item as an orphan. Real money unless {@link #samePurchase()}: someone must refund or
 * void it.
 *
 * @param sessionId the order
 * @param staleClaimId the token of the attempt that bought {@link #orphan()}
 * @param orphan what that attempt bought
 * @param current the order as the store holds it (its item, if provisioned, is what the customer
 *     was shown)
 */
public record OrphanReport(
    String sessionId, ClaimId staleClaimId, Item orphan, OrderRecord current) {

  /** Checks every field is present. */
  public OrphanReport {
    Objects.requireNonNull(sessionId, "sessionId");
    Objects.requireNonNull(staleClaimId, "staleClaimId");
    Objects.requireNonNull(orphan, "orphan");
    Objects.requireNonNull(current, "current");
  }

  /**
   * The token that holds or settled the order now: its current claim, else the claim whose write
   * settled it last; {@code null} if neither.
   */
  public ClaimId currentClaimId() {
    return current.claimId() != null ? current.claimId() : current.settledBy();
  }

  /** The provider order id the customer was shown, or {@code null} if the order has no item. */
  public String currentProviderOrderId() {
    return current.item() == null ? null : current.item().providerOrderId();
  }

  /**
   * Whether the orphan is the very purchase the order shows (the provider handed one purchase to
   * both attempts for their shared idempotency key): then there is nothing to refund.
   */
  public boolean samePurchase() {
    return orphan.providerOrderId().equals(currentProviderOrderId());
  }

  /** One line for a log or an alert, naming both tokens and both provider order ids. */
  public String describe() {
    return "order '"
        + sessionId
        + "': attempt "
        + staleClaimId
        + " bought provider order '"
        + orphan.providerOrderId()
        + "' after it had lost the order; the store kept it as an orphan. The order is "
        + current.status()
        + " under "
        + currentClaimId()
        + (currentProviderOrderId() == null
            ? " with no item"
            : " with provider order '" + currentProviderOrderId() + "'")
        + (samePurchase()
            ? ": the same purchase (one idempotency key), nothing to refund."
            : ": real money, refund or void provider order '" + orphan.providerOrderId() + "'.");
  }
}
