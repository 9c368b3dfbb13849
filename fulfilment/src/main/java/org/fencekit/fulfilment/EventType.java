package org.fencekit.fulfilment;

import java.util.Arrays;
import java.util.Objects;

/** What a Checkout webhook event says happened, as far as fulfilment cares. */
public enum EventType {
  /** {@code checkout.session.completed}: the customer finished Checkout; paid, or not yet. */
  COMPLETED("checkout.session.completed"),
  /** {@code checkout.session.async_payment_succeeded}: a delayed payment (a bank debit) cleared. */
  ASYNC_PAYMENT_SUCCEEDED("checkout.session.async_payment_succeeded"),
  /** {@code checkout.session.async_payment_failed}: a delayed payment failed; nothing is owed. */
  ASYNC_PAYMENT_FAILED("checkout.session.async_payment_failed"),
  /** Any other event type: acknowledged and ignored. */
  OTHER(null);

  private final String stripeName;

  EventType(String stripeName) {
    this.stripeName = stripeName;
  }

  /** The Stripe event type string, or {@code null} for {@link #OTHER}. */
  public String stripeName() {
    return stripeName;
  }

  /** Whether this event is about a Checkout session, so it carries an order snapshot. */
  public boolean aboutCheckoutSession() {
    return this != OTHER;
  }

  /**
   * The type a Stripe event type string names; {@link #OTHER} for anything but the three Checkout
   * types above.
   *
   * @param stripeType the event's {@code type}, e.g. {@code checkout.session.completed}
   */
  public static EventType of(String stripeType) {
    Objects.requireNonNull(stripeType, "event type");
    return Arrays.stream(values())
        .filter(type -> stripeType.equals(type.stripeName))
        .findFirst()
        .orElse(OTHER);
  }
}
