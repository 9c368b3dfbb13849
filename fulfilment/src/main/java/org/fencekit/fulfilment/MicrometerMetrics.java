package org.fencekit.fulfilment;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * {@link FulfilmentMetrics} in a Micrometer registry (add {@code io.micrometer:micrometer-core} to
 * use it; the handler needs it only for this class):
 *
 * <ul>
 *   <li>{@code fencekit.claims} (counter, tag {@code outcome}: claimed, provisioned, in_flight);
 *   <li>{@code fencekit.settles} (counter, tags {@code operation}: complete, fail; {@code outcome}:
 *       written, superseded);
 *   <li>{@code fencekit.orphans} (counter, tag {@code same_purchase}: true, false);
 *   <li>{@code fencekit.store.errors} (counter, tags {@code operation}, {@code outcome_unknown});
 *   <li>{@code fencekit.store.calls} (timer, tag {@code operation});
 *   <li>{@code fencekit.provider.calls} (timer, tag {@code outcome}: bought, refused, unknown);
 *   <li>{@code fencekit.provider.calls.in.flight} (gauge);
 *   <li>{@code fencekit.deliveries} (counter, tags {@code outcome} (the outcome kind, lower case)
 *       and {@code status}).
 * </ul>
 */
public final class MicrometerMetrics implements FulfilmentMetrics {

  private final MeterRegistry registry;
  private final AtomicInteger inFlight = new AtomicInteger();

  /** Metrics in {@code registry}. */
  public MicrometerMetrics(MeterRegistry registry) {
    this.registry = Objects.requireNonNull(registry, "registry");
    Gauge.builder("fencekit.provider.calls.in.flight", inFlight, AtomicInteger::get)
        .description("Provider calls running now")
        .register(registry);
  }

  @Override
  public void claim(String outcome) {
    counter("fencekit.claims", "Claims by outcome", "outcome", outcome).increment();
  }

  @Override
  public void settle(String operation, String outcome) {
    Counter.builder("fencekit.settles")
        .description("Completes and fails by outcome")
        .tag("operation", operation)
        .tag("outcome", outcome)
        .register(registry)
        .increment();
  }

  @Override
  public void orphan(boolean samePurchase) {
    counter(
            "fencekit.orphans",
            "Purchases kept as orphans (superseded completes)",
            "same_purchase",
            String.valueOf(samePurchase))
        .increment();
  }

  @Override
  public void storeError(String operation, boolean outcomeUnknown) {
    Counter.builder("fencekit.store.errors")
        .description("Store calls that failed")
        .tag("operation", operation)
        .tag("outcome_unknown", String.valueOf(outcomeUnknown))
        .register(registry)
        .increment();
  }

  @Override
  public void storeCall(String operation, Duration took) {
    Timer.builder("fencekit.store.calls")
        .description("Store calls")
        .tag("operation", operation)
        .register(registry)
        .record(took);
  }

  @Override
  public void providerCallStarted() {
    inFlight.incrementAndGet();
  }

  @Override
  public void providerCallEnded(String outcome, Duration took) {
    inFlight.decrementAndGet();
    Timer.builder("fencekit.provider.calls")
        .description("Provider calls by outcome")
        .tag("outcome", outcome)
        .register(registry)
        .record(took);
  }

  @Override
  public void delivery(FulfilmentOutcome outcome) {
    Counter.builder("fencekit.deliveries")
        .description("Webhook deliveries the handler answered, by outcome")
        .tag("outcome", outcome.kind().name().toLowerCase(Locale.ROOT))
        .tag("status", String.valueOf(outcome.httpStatus()))
        .register(registry)
        .increment();
  }

  private Counter counter(String name, String description, String tag, String value) {
    return Counter.builder(name).description(description).tag(tag, value).register(registry);
  }
}
