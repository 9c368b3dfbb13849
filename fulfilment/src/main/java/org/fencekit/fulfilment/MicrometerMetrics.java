package org.fencekit.fulfilment;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
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
 *   <li>{@code fencekit.claims} (counter, tag {@code outcome}: claimed, provisioned, in_flight,
 *       mismatch);
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
    counter("fencekit.claims", "Claims by outcome", Tags.of("outcome", outcome));
  }

  @Override
  public void settle(String operation, String outcome) {
    Tags tags = Tags.of("operation", operation, "outcome", outcome);
    counter("fencekit.settles", "Completes and fails by outcome", tags);
  }

  @Override
  public void orphan(boolean samePurchase) {
    Tags tags = Tags.of("same_purchase", String.valueOf(samePurchase));
    counter("fencekit.orphans", "Purchases kept as orphans (superseded completes)", tags);
  }

  @Override
  public void storeError(String operation, boolean outcomeUnknown) {
    Tags tags = Tags.of("operation", operation, "outcome_unknown", String.valueOf(outcomeUnknown));
    counter("fencekit.store.errors", "Store calls that failed", tags);
  }

  @Override
  public void storeCall(String operation, Duration took) {
    timer("fencekit.store.calls", "Store calls", Tags.of("operation", operation)).record(took);
  }

  @Override
  public void providerCallStarted() {
    inFlight.incrementAndGet();
  }

  @Override
  public void providerCallEnded(String outcome, Duration took) {
    inFlight.decrementAndGet();
    timer("fencekit.provider.calls", "Provider calls by outcome", Tags.of("outcome", outcome))
        .record(took);
  }

  @Override
  public void delivery(FulfilmentOutcome outcome) {
    String kind = outcome.kind().name().toLowerCase(Locale.ROOT);
    Tags tags = Tags.of("outcome", kind, "status", String.valueOf(outcome.httpStatus()));
    counter("fencekit.deliveries", "Webhook deliveries the handler answered, by outcome", tags);
  }

  /** Counts one in the counter {@code name} with {@code tags}. */
  private void counter(String name, String description, Tags tags) {
    Counter.builder(name).description(description).tags(tags).register(registry).increment();
  }

  private Timer timer(String name, String description, Tags tags) {
    return Timer.builder(name).description(description).tags(tags).register(registry);
  }
}
