package org.fencekit.store;

import java.util.Objects;
import java.util.Set;

/**
 * What {@link OrderStore#claim} decided. Handle every case (Java 21 pattern switch shown):
 *
 * <pre>{@code
 * switch (store.claim(snapshot, lease)) {
 *   case ClaimResult.Claimed c -> provision(c.claimId());   // you own it: complete or fail with this token
 *   case ClaimResult.Provisioned p -> ok();                  // done before: a duplicate delivery
 *   case ClaimResult.InFlight f -> retryLater();             // another attempt holds a live lease (409)
 *   case ClaimResult.Mismatch m -> refuse(m.fields());       // another order under this key: buy nothing
 * }
 * }</pre>
 */
public sealed interface ClaimResult {

  /** The order as the store holds it after the decision. */
  OrderRecord record();

  /**
   * The caller now owns the order and must settle it with {@code claimId}.
   *
   * @param claimId the token to present to complete, fail and extend
   * @param record the order after the claim
   */
  record Claimed(ClaimId claimId, OrderRecord record) implements ClaimResult {
    /** Checks both fields are present. */
    public Claimed {
      Objects.requireNonNull(claimId, "claimId");
      Objects.requireNonNull(record, "record");
    }
  }

  /**
   * The order was provisioned already: a duplicate delivery; do nothing more.
   *
   * @param record the provisioned order
   */
  record Provisioned(OrderRecord record) implements ClaimResult {
    /** Checks the record is present. */
    public Provisioned {
      Objects.requireNonNull(record, "record");
    }
  }

  /**
   * Another attempt holds a live lease; come back later (answer the webhook with 409).
   *
   * @param record the order, with the other attempt's claim
   */
  record InFlight(OrderRecord record) implements ClaimResult {
    /** Checks the record is present. */
    public InFlight {
      Objects.requireNonNull(record, "record");
    }
  }

  /**
   * The stored order is a different order than the snapshot offered: they differ in {@code fields}
   * (see {@link OrderField}). Nothing changed, whatever the order's status; the store recorded the
   * claim for its operators ({@link OrderStoreAdmin#mismatches}). Buy nothing: someone must find
   * out which order the session id names.
   *
   * @param record the order as stored, unchanged
   * @param fields the fields that differ, in {@link OrderField}'s order; never empty
   */
  record Mismatch(OrderRecord record, Set<OrderField> fields) implements ClaimResult {
    /**
     * Checks both are present and at least one field differs; keeps a sorted, unmodifiable copy.
     */
    public Mismatch {
      Objects.requireNonNull(record, "record");
      fields = OrderField.sorted("fields", fields);
      if (fields.isEmpty()) {
        throw new IllegalArgumentException(
            "fields must name at least one differing field; order '"
                + record.sessionId()
                + "' got none");
      }
    }
  }
}
