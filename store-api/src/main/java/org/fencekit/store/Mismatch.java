package org.fencekit.store;

import java.time.Instant;
import java.util.SortedSet;
import org.fencekit.store.spi.Validate;

/**
 * A claim that offered a different order under a stored order's session id, as a store records it
 * for its operators ({@link OrderStoreAdmin#mismatches}): the claim changed nothing and answered
 * {@link ClaimResult.Mismatch}. The store records one per such claim, in the same atomic step as
 * its answer, and never changes or deletes one.
 *
 * <p>The values are for the operator who finds out which order the session id names (a release that
 * changed how metadata maps to a product, two shops sharing a store, a handler keying orders by a
 * cart); they are not for an HTTP answer. Neither snapshot carries the customer's e-mail: it is not
 * part of what defines an order (see {@link OrderField}), and it is personal data, so a store keeps
 * none for a mismatch.
 *
 * @param id the mismatch's identity (the order and the claim's nonce)
 * @param recordedAt when the store refused the claim, at millisecond precision
 * @param stored the order's stored snapshot (the first one it was claimed with), without e-mail
 * @param offered the snapshot the refused claim offered, without e-mail
 */
public record Mismatch(
    MismatchId id, Instant recordedAt, OrderSnapshot stored, OrderSnapshot offered) {

  /**
   * Checks every part is present and about the one order, drops the e-mails, and checks the two
   * snapshots differ in at least one {@link OrderField}.
   */
  public Mismatch {
    Validate.notNull("id", id);
    Validate.notNull("recordedAt", recordedAt);
    stored = withoutEmail("stored", stored, id);
    offered = withoutEmail("offered", offered, id);
    if (OrderField.differing(stored, offered).isEmpty()) {
      throw new IllegalArgumentException(
          String.format(
              "a mismatch needs snapshots that differ in a field of OrderField; the %s has stored"
                  + " %s and offered %s",
              id, stored, offered));
    }
  }

  private static OrderSnapshot withoutEmail(String name, OrderSnapshot snapshot, MismatchId id) {
    Validate.notNull(name, snapshot);
    if (!snapshot.sessionId().equals(id.sessionId())) {
      throw new IllegalArgumentException(
          String.format(
              "%s is a snapshot of order '%s', not of the %s", name, snapshot.sessionId(), id));
    }
    return snapshot.customerEmail() == null
        ? snapshot
        : new OrderSnapshot(
            snapshot.sessionId(),
            snapshot.productId(),
            snapshot.quantity(),
            null,
            snapshot.amountTotal(),
            snapshot.currency());
  }

  /** The order's key. */
  public String sessionId() {
    return id.sessionId();
  }

  /** The fields in which the offered order differs from the stored one; never empty. */
  public SortedSet<OrderField> fields() {
    return OrderField.differing(stored, offered);
  }
}
