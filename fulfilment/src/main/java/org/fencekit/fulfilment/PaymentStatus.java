package org.fencekit.fulfilment;

import java.util.Objects;

/** A Checkout session's {@code payment_status}. */
public enum PaymentStatus {
  /** The payment was collected: fulfil. */
  PAID("paid"),
  /** Not yet collected (a delayed method): wait for {@code async_payment_succeeded}. */
  UNPAID("unpaid"),
  /** Nothing to pay (a free order, a 100% discount): fulfil. */
  NO_PAYMENT_REQUIRED("no_payment_required");

  private final String stripeName;

  PaymentStatus(String stripeName) {
    this.stripeName = stripeName;
  }

  /** The Stripe string, e.g. {@code no_payment_required}. */
  public String stripeName() {
    return stripeName;
  }

  /** Whether an order with this status may be fulfilled now. */
  public boolean settled() {
    return this != UNPAID;
  }

  /**
   * The status a Stripe {@code payment_status} string names.
   *
   * @throws IllegalArgumentException for any other string: an unknown status is never taken for
   *     paid
   */
  public static PaymentStatus of(String stripeName) {
    Objects.requireNonNull(stripeName, "paymentStatus");
    for (PaymentStatus status : values()) {
      if (status.stripeName.equals(stripeName)) {
        return status;
      }
    }
    throw new IllegalArgumentException(
        "paymentStatus must be paid, unpaid or no_payment_required, got '"
            + stripeName
            + "'; an unknown status is not fulfilled: map it explicitly if Stripe added one");
  }
}
