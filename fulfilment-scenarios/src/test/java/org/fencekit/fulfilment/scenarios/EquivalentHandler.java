package org.fencekit.fulfilment.scenarios;

import org.fencekit.fulfilment.FulfilmentHandler;
import org.fencekit.fulfilment.FulfilmentOutcome;
import org.fencekit.fulfilment.Provider;
import org.fencekit.fulfilment.ProviderException;

/**
 * Handlers that differ from fencekit's only in ways the rules allow: other statuses of the same
 * effect on Stripe, an exception for a retry, other timings. Each must hold every scenario on every
 * run: a kit that fails a right handler teaches its users to stop trusting it.
 */
enum EquivalentHandler implements HandlerFactory {

  /** Every retry is answered 503 (one status for "come back later"). */
  RETRY_IS_503 {
    @Override
    public HandlerUnderTest create(HandlerContext context) {
      return WrongHandler.answering(
          context, outcome -> success(outcome) ? outcome.httpStatus() : 503);
    }
  },

  /**
   * Another table: 429 for an order in flight, 502 for a provider failure, 409 for another cart
   * under an order's session id, 204 for an event that needs nothing done, 202 for a fulfilled
   * order.
   */
  OTHER_STATUS_TABLE {
    @Override
    public HandlerUnderTest create(HandlerContext context) {
      return WrongHandler.answering(
          context,
          outcome ->
              switch (outcome.kind()) {
                case IN_FLIGHT -> 429;
                case PROVIDER_FAILED -> 502;
                case MISMATCH -> 409;
                case IGNORED, AWAITING_PAYMENT, PAYMENT_FAILED -> 204;
                case FULFILLED -> 202;
                default -> outcome.httpStatus();
              });
    }
  },

  /** A retry is an exception the web framework answers 500. */
  THROWS_FOR_RETRY {
    @Override
    public HandlerUnderTest create(HandlerContext context) {
      return WrongHandler.answering(
          context,
          outcome -> {
            if (!success(outcome)) {
              throw new IllegalStateException("retry later: " + outcome.reason());
            }
            return outcome.httpStatus();
          });
    }
  },

  /**
   * A provider client that, as Stripe's own client libraries do, retries a call whose outcome is
   * unknown at once, up to twice, with the same idempotency key: once a retry lands, the order is
   * bought once and settled, and the delivery answered 200 (the false alarm of issue 38).
   */
  RETRIES_UNKNOWN_AT_ONCE {
    @Override
    public HandlerUnderTest create(HandlerContext context) {
      Provider retrying =
          purchase -> {
            for (int retry = 0; ; retry++) {
              try {
                return context.provider().buy(purchase);
              } catch (ProviderException e) {
                if (e.nothingBought() || retry == 2) {
                  throw e;
                }
              }
            }
          };
      return HandlerUnderTest.of(
          context.configure(FulfilmentHandler.builder(context.store(), retrying)).build());
    }
  },

  /** Other timings: a heartbeat every third of the lease, five settle attempts. */
  OTHER_TIMINGS {
    @Override
    public HandlerUnderTest create(HandlerContext context) {
      return HandlerUnderTest.of(
          context
              .fulfilmentHandler()
              .heartbeat(context.lease().dividedBy(3))
              .settleAttempts(5)
              .build());
    }
  };

  private static boolean success(FulfilmentOutcome outcome) {
    return outcome.httpStatus() >= 200 && outcome.httpStatus() < 300;
  }
}
