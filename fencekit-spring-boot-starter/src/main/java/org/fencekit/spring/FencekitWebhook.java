package org.fencekit.spring;

import java.time.Duration;
import java.util.Objects;
import org.fencekit.server.WebhookCore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;

/**
 * The {@link WebhookCore} as a bean: stopped gracefully with the context (new deliveries answered
 * 503 while those in flight finish, up to the stop timeout).
 */
public final class FencekitWebhook implements DisposableBean {

  private static final Logger LOG = LoggerFactory.getLogger(FencekitWebhook.class);

  private final WebhookCore core;
  private final Duration stopTimeout;

  /**
   * @param core the core the routes answer with
   * @param stopTimeout how long a stop waits for deliveries in flight
   */
  public FencekitWebhook(WebhookCore core, Duration stopTimeout) {
    this.core = Objects.requireNonNull(core, "core");
    this.stopTimeout = Objects.requireNonNull(stopTimeout, "stopTimeout");
  }

  /** The core. */
  public WebhookCore core() {
    return core;
  }

  @Override
  public void destroy() {
    core.drain();
    if (!core.awaitIdle(stopTimeout)) {
      LOG.warn(
          "fencekit: stopping with {} deliveries still in flight after {}; Stripe will retry them",
          core.inFlight(),
          stopTimeout);
    }
    core.close();
  }
}
