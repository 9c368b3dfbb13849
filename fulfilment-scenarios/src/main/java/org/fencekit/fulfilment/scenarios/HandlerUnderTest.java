package org.fencekit.fulfilment.scenarios;

import org.fencekit.fulfilment.CheckoutEvent;
import org.fencekit.fulfilment.FulfilmentHandler;

/**
 * A Checkout webhook handler as the scenarios see it: it takes one delivery and answers an HTTP
 * status (2xx: Stripe stops; anything else: Stripe delivers again later). An exception it throws
 * counts as 500, as a web server would answer. If it is also {@link AutoCloseable}, the kit closes
 * it when the run ends.
 */
@FunctionalInterface
public interface HandlerUnderTest {

  /**
   * Handles one delivery.
   *
   * @return the HTTP status to answer
   * @throws Exception if the handler fails (answered as 500)
   */
  int handle(CheckoutEvent event) throws Exception;

  /**
   * fencekit's own handler, answering {@link
   * org.fencekit.fulfilment.FulfilmentOutcome#httpStatus()}.
   */
  static HandlerUnderTest of(FulfilmentHandler handler) {
    return new Closing(handler);
  }

  /** fencekit's handler as a closeable handler under test. */
  final class Closing implements HandlerUnderTest, AutoCloseable {
    private final FulfilmentHandler handler;

    private Closing(FulfilmentHandler handler) {
      this.handler = handler;
    }

    @Override
    public int handle(CheckoutEvent event) {
      return handler.handle(event).httpStatus();
    }

    @Override
    public void close() {
      handler.close();
    }
  }
}
