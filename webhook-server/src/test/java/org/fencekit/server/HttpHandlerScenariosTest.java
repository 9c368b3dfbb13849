package org.fencekit.server;

import java.time.Duration;
import org.fencekit.fulfilment.CheckoutEvent;
import org.fencekit.fulfilment.scenarios.FulfilmentScenarios;
import org.fencekit.fulfilment.scenarios.HandlerContext;
import org.fencekit.fulfilment.scenarios.HandlerUnderTest;

/**
 * The scenario kit over HTTP: each instance of a scenario is a webhook server of its own (one
 * process of the shop), every delivery a signed POST; the answers the kit checks are the HTTP
 * statuses Stripe would see.
 */
class HttpHandlerScenariosTest extends FulfilmentScenarios {

  @Override
  protected HandlerUnderTest newHandler(HandlerContext context) {
    WebhookServer server =
        WebhookServer.builder(context.store(), context.provider())
            .host("127.0.0.1")
            .port(0)
            .clock(context.clock())
            .secret(StripeDeliveries.SECRET)
            .stopTimeout(Duration.ofSeconds(1))
            .handler(context::configure)
            .build()
            .start();
    return new OverHttp(server, new StripeDeliveries(server.port(), context.clock()));
  }

  /** Posts each event, signed, to a server of its own. */
  private record OverHttp(WebhookServer server, StripeDeliveries stripe)
      implements HandlerUnderTest, AutoCloseable {
    @Override
    public int handle(CheckoutEvent event) {
      return stripe.deliver(event).statusCode();
    }

    @Override
    public void close() {
      server.close();
    }
  }
}
