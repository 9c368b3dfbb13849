package org.fencekit.spring;

import java.util.concurrent.ExecutionException;
import org.fencekit.store.OrderStore;
import org.fencekit.webhook.HealthProbe;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * UP when the store takes writes, DOWN when it does not answer within 5 s or refuses: the same
 * probe as fencekit's server's {@code /health} (a heartbeat for an order that never exists, decided
 * on each store's write path, writing nothing), with its fields as details.
 */
public final class FencekitHealthIndicator implements HealthIndicator, AutoCloseable {

  private final HealthProbe probe;

  /** An indicator for {@code store}. */
  public FencekitHealthIndicator(OrderStore store) {
    this.probe = new HealthProbe(store, HealthProbe.DEFAULT_TIMEOUT);
  }

  @Override
  public Health health() {
    HealthProbe.Result result;
    try {
      result = probe.check().get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Health.down().withDetail("reason", "interrupted").build();
    } catch (ExecutionException e) {
      return Health.down().withDetail("reason", "the probe failed").build();
    }
    Health.Builder health = result.ok() ? Health.up() : Health.down();
    if (result.ok()) {
      health.withDetail("store", result.store());
    } else {
      health.withDetail("error", result.error());
    }
    health.withDetail("reason", result.reason());
    return health.build();
  }

  @Override
  public void close() {
    probe.close();
  }
}
