package org.fencekit.fulfilment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.fencekit.store.OrderSnapshot;
import org.junit.jupiter.api.Test;

class CheckoutEventTest {

  private static final OrderSnapshot ORDER =
      new OrderSnapshot("cs_test_a1", "esim-eu-5gb", 1, "buyer@example.com", 1500, "eur");

  @Test
  void stripeTypesMapOntoTheThreeCheckoutTypesAndEverythingElseIsOther() {
    assertEquals(EventType.COMPLETED, EventType.of("checkout.session.completed"));
    assertEquals(
        EventType.ASYNC_PAYMENT_SUCCEEDED,
        EventType.of("checkout.session.async_payment_succeeded"));
    assertEquals(
        EventType.ASYNC_PAYMENT_FAILED, EventType.of("checkout.session.async_payment_failed"));
    assertEquals(EventType.OTHER, EventType.of("checkout.session.expired"));
    assertEquals(EventType.OTHER, EventType.of("invoice.paid"));
    assertEquals(EventType.OTHER, EventType.of("CHECKOUT.SESSION.COMPLETED"));
  }

  @Test
  void anUnknownPaymentStatusIsRefusedNeverTakenForPaid() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> PaymentStatus.of("paid_later"));
    assertTrue(e.getMessage().contains("paymentStatus"), e.getMessage());
    assertTrue(e.getMessage().contains("paid_later"), e.getMessage());
    assertEquals(PaymentStatus.NO_PAYMENT_REQUIRED, PaymentStatus.of("no_payment_required"));
    assertTrue(PaymentStatus.PAID.settled());
    assertTrue(PaymentStatus.NO_PAYMENT_REQUIRED.settled());
    assertEquals(false, PaymentStatus.UNPAID.settled());
  }

  @Test
  void aCheckoutEventMustCarryItsOrderAndPaymentStatus() {
    NullPointerException noOrder =
        assertThrows(
            NullPointerException.class,
            () -> CheckoutEvent.of("evt_1", "checkout.session.completed", "paid", null));
    assertTrue(noOrder.getMessage().startsWith("snapshot"), noOrder.getMessage());
    NullPointerException noStatus =
        assertThrows(
            NullPointerException.class,
            () -> CheckoutEvent.of("evt_1", "checkout.session.completed", null, ORDER));
    assertTrue(noStatus.getMessage().startsWith("paymentStatus"), noStatus.getMessage());
  }

  @Test
  void anotherEventTypeNeedsNoOrder() {
    CheckoutEvent event = CheckoutEvent.of("evt_1", "invoice.paid", null, null);
    assertEquals(EventType.OTHER, event.type());
    assertEquals("invoice.paid", event.typeName());
    assertNull(event.sessionId());
  }

  @Test
  void theEventIdIsValidatedAndNamed() {
    IllegalArgumentException blank =
        assertThrows(
            IllegalArgumentException.class,
            () -> CheckoutEvent.completed(" ", PaymentStatus.PAID, ORDER));
    assertTrue(blank.getMessage().contains("eventId"), blank.getMessage());
    assertThrows(
        IllegalArgumentException.class,
        () -> CheckoutEvent.completed("evt_\u0000", PaymentStatus.PAID, ORDER));
  }

  @Test
  void aTypeNameMustAgreeWithItsType() {
    assertThrows(
        IllegalArgumentException.class,
        () ->
            new CheckoutEvent(
                "evt_1", EventType.COMPLETED, "invoice.paid", PaymentStatus.PAID, ORDER));
  }

  @Test
  void theAsyncFactoriesCarryTheirPaymentStatus() {
    assertEquals(
        PaymentStatus.PAID, CheckoutEvent.asyncPaymentSucceeded("evt_1", ORDER).paymentStatus());
    assertEquals(
        PaymentStatus.UNPAID, CheckoutEvent.asyncPaymentFailed("evt_1", ORDER).paymentStatus());
    assertEquals("cs_test_a1", CheckoutEvent.asyncPaymentFailed("evt_1", ORDER).sessionId());
  }
}
