package org.fencekit.fulfilment.scenarios;

import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.Executor;
import org.fencekit.fulfilment.FulfilmentHandler;
import org.fencekit.fulfilment.OrphanListener;
import org.fencekit.fulfilment.Provider;
import org.fencekit.fulfilment.Scheduler;
import org.fencekit.store.OrderStore;

/**
 * Everything a handler instance (one "process") of a scenario run must be built from. Use all of
 * it: the scenarios move the clock and run the scheduler's tasks themselves, so a handler that
 * keeps time or runs timers of its own will not see what the scenario does.
 *
 * @param instance the instance's name ("A", "B", ...)
 * @param store the run's store as this instance reaches it (each call recorded in the run's
 *     history; the kit can cut it off); do not close
 * @param provider the run's fake provider as this instance calls it
 * @param clock the run's test clock
 * @param scheduler where the handler must run its heartbeats and deadlines
 * @param providerExecutor where the handler must run provider calls, so the kit knows when the
 *     instance is idle
 * @param orphanListener where the handler must report every superseded complete (an orphaned
 *     purchase)
 * @param lease the lease to claim with
 * @param heartbeat how often to extend the lease during a provider call
 * @param providerTimeout the longest a provider call may run (heartbeats permitting)
 */
public record HandlerContext(
    String instance,
    OrderStore store,
    Provider provider,
    Clock clock,
    Scheduler scheduler,
    Executor providerExecutor,
    OrphanListener orphanListener,
    Duration lease,
    Duration heartbeat,
    Duration providerTimeout) {

  /** A {@link FulfilmentHandler} builder with every part of this context set. */
  public FulfilmentHandler.Builder fulfilmentHandler() {
    return configure(FulfilmentHandler.builder(store, provider));
  }

  /**
   * {@code builder} with this context's clock, scheduler, provider executor, orphan listener and
   * timings set (its store and provider are the builder's own).
   */
  public FulfilmentHandler.Builder configure(FulfilmentHandler.Builder builder) {
    return builder
        .clock(clock)
        .scheduler(scheduler)
        .providerExecutor(providerExecutor)
        .orphanListener(orphanListener)
        .lease(lease)
        .heartbeat(heartbeat)
        .providerTimeout(providerTimeout);
  }
}
