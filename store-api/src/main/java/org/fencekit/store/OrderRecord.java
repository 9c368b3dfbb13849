package org.fencekit.store;

import java.time.Instant;
import java.util.Objects;

/**
 * An order as a store holds it.
 *
 * @param snapshot the first snapshot the order was claimed with
 * @param status where the order stands
 * @param item what was delivered; non-null exactly when {@code status} is PROVISIONED
 * @param lastError the error of the last failed attempt, kept across re-claims, or {@code null}
 * @param claimId the current claim's token, or {@code null} when no attempt holds the order
 * @param claimedAt when the current claim was granted, or {@code null} with no claim
 * @param leaseExpiresAt when the current claim's lease runs out, or {@code null} with no claim
 * @param fence the number of claims granted so far (the current claim's fence, when there is one)
 * @param settledBy the token whose complete or fail settled the order last, or {@code null}
 * @param updatedAt when the record last changed
 * @param failures how many fails landed on the order (replays not counted); kept by later claims
 *     and by the complete, like lastError
 * @param failedSince when the first of those fails landed, or {@code null} if none did; kept like
 *     failures, so a FAILED order has been failing since then
 */
public record OrderRecord(
    OrderSnapshot snapshot,
    OrderStatus status,
    Item item,
    String lastError,
    ClaimId claimId,
    Instant claimedAt,
    Instant leaseExpiresAt,
    long fence,
    ClaimId settledBy,
    Instant updatedAt,
    int failures,
    Instant failedSince) {

  /**
   * A record with no failure count ({@code failures} 0, {@code failedSince} null): an order that
   * never failed, or one read from a store that does not count failures (one that does not
   * implement {@link OrderStoreAdmin}).
   */
  public OrderRecord(
      OrderSnapshot snapshot,
      OrderStatus status,
      Item item,
      String lastError,
      ClaimId claimId,
      Instant claimedAt,
      Instant leaseExpiresAt,
      long fence,
      ClaimId settledBy,
      Instant updatedAt) {
    this(
        snapshot,
        status,
        item,
        lastError,
        claimId,
        claimedAt,
        leaseExpiresAt,
        fence,
        settledBy,
        updatedAt,
        0,
        null);
  }

  /**
   * Checks the record's own consistency, so a backend cannot build a record the contract forbids.
   */
  public OrderRecord {
    Objects.requireNonNull(snapshot, "snapshot");
    Objects.requireNonNull(status, "status");
    Objects.requireNonNull(updatedAt, "updatedAt");
    if ((item != null) != (status == OrderStatus.PROVISIONED)) {
      throw new IllegalArgumentException(
          "item must be set exactly when the order is PROVISIONED; order '%s' is %s with item %s"
              .formatted(snapshot.sessionId(), status, item));
    }
    boolean claimed = claimId != null;
    if (claimed != (claimedAt != null) || claimed != (leaseExpiresAt != null)) {
      throw new IllegalArgumentException(
          String.format(
              "claimId, claimedAt and leaseExpiresAt must be all set or all null; order '%s'"
                  + " has %s, %s, %s",
              snapshot.sessionId(), claimId, claimedAt, leaseExpiresAt));
    }
    if (claimed && claimId.fence() != fence) {
      throw new IllegalArgumentException(
          String.format(
              "the current claim's fence must equal the record's fence; order '%s' has claim %s"
                  + " and fence %s",
              snapshot.sessionId(), claimId, fence));
    }
    if (failures < 0 || (failures == 0) != (failedSince == null)) {
      throw new IllegalArgumentException(
          String.format(
              "failures must be at least 0, and failedSince set exactly when failures > 0; order"
                  + " '%s' has failures %s and failedSince %s",
              snapshot.sessionId(), failures, failedSince));
    }
    if (fence < 1) {
      throw new IllegalArgumentException(
          "fence must be at least 1 (an order exists only once claimed); order '%s' has %s"
              .formatted(snapshot.sessionId(), fence));
    }
  }

  /** The order's key, {@code snapshot().sessionId()}. */
  public String sessionId() {
    return snapshot.sessionId();
  }

  /** Whether an attempt holds a claim whose lease has not run out at {@code now}. */
  public boolean leaseLiveAt(Instant now) {
    return claimId != null && now.isBefore(leaseExpiresAt);
  }
}
