package org.fencekit.fulfilment;

import java.util.Objects;
import org.fencekit.store.OrderSnapshot;
import org.fencekit.store.spi.Validate;

/**
 * What a Checkout webhook delivery says, with no Stripe types: the endpoint maps Stripe's JSON onto
 * it.
 *
 * <p>Stripe delivers an event at least once and may send the same session under several event ids
 * (a redelivery is a new event): the handler keys everything on the session, never on the event id,
 * which is only logged.
 *
 * @param eventId the event's id ({@code evt_...}), for logs; non-blank, at most 255 characters
 * @param type what happened
 * @param typeName the event's type string as sent (e.g. {@code invoice.paid} for {@link
 *     EventType#OTHER}); non-blank
 * @param paymentStatus the session's payment status; required for the Checkout types, {@code null}
 *     allowed for {@link EventType#OTHER}
 * @param snapshot the order as the session describes it; required for the Checkout types, {@code
 *     null} allowed for {@link EventType#OTHER}
 */
public record CheckoutEvent(
    String eventId,
    EventType type,
    String typeName,
    PaymentStatus paymentStatus,
    OrderSnapshot snapshot) {

  /** Validates the event; see the parameters for the rules. */
  public CheckoutEvent {
    Validate.text("eventId", eventId, Validate.MAX_ID_LENGTH);
    Objects.requireNonNull(type, "type");
    Validate.text("typeName", typeName, Validate.MAX_ID_LENGTH);
    if (type != EventType.OTHER && !typeName.equals(type.stripeName())) {
      throw new IllegalArgumentException(
          "typeName '%s' does not name type %s (%s)".formatted(typeName, type, type.stripeName()));
    }
    if (type.aboutCheckoutSession()) {
      if (snapshot == null) {
        throw new NullPointerException(
            "snapshot: a " + typeName + " event must carry the order (event " + eventId + ")");
      }
      if (paymentStatus == null) {
        throw new NullPointerException(
            "paymentStatus: a " + typeName + " event must carry it (event " + eventId + ")");
      }
    }
  }

  /**
   * An event from Stripe's strings.
   *
   * @param eventId the event's id
   * @param typeName the event's {@code type}
   * @param paymentStatus the session's {@code payment_status}, or {@code null} if the event has no
   *     session
   * @param snapshot the order, or {@code null} if the event has no session
   * @throws IllegalArgumentException for an unknown payment status or a bad field
   */
  public static CheckoutEvent of(
      String eventId, String typeName, String paymentStatus, OrderSnapshot snapshot) {
    Objects.requireNonNull(typeName, "typeName");
    return new CheckoutEvent(
        eventId,
        EventType.of(typeName),
        typeName,
        paymentStatus == null ? null : PaymentStatus.of(paymentStatus),
        snapshot);
  }

  /** A {@code checkout.session.completed} event. */
  public static CheckoutEvent completed(
      String eventId, PaymentStatus paymentStatus, OrderSnapshot snapshot) {
    return checkout(eventId, EventType.COMPLETED, paymentStatus, snapshot);
  }

  /** A {@code checkout.session.async_payment_succeeded} event (the session is now paid). */
  public static CheckoutEvent asyncPaymentSucceeded(String eventId, OrderSnapshot snapshot) {
    return checkout(eventId, EventType.ASYNC_PAYMENT_SUCCEEDED, PaymentStatus.PAID, snapshot);
  }

  /** A {@code checkout.session.async_payment_failed} event (the session stays unpaid). */
  public static CheckoutEvent asyncPaymentFailed(String eventId, OrderSnapshot snapshot) {
    return checkout(eventId, EventType.ASYNC_PAYMENT_FAILED, PaymentStatus.UNPAID, snapshot);
  }

  private static CheckoutEvent checkout(
      String eventId, EventType type, PaymentStatus paymentStatus, OrderSnapshot snapshot) {
    return new CheckoutEvent(eventId, type, type.stripeName(), paymentStatus, snapshot);
  }

  /** An event of another type, which the handler acknowledges and ignores. */
  public static CheckoutEvent other(String eventId, String typeName) {
    return new CheckoutEvent(eventId, EventType.OTHER, typeName, null, null);
  }

  /** The order's key, or {@code null} if the event has no session. */
  public String sessionId() {
    return snapshot == null ? null : snapshot.sessionId();
  }
}
