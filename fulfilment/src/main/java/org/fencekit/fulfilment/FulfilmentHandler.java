package org.fencekit.fulfilment;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.fencekit.store.ClaimId;
import org.fencekit.store.ClaimResult;
import org.fencekit.store.Item;
import org.fencekit.store.OrderRecord;
import org.fencekit.store.OrderSnapshot;
import org.fencekit.store.OrderStore;
import org.fencekit.store.StoreUnavailableException;
import org.fencekit.store.UnknownOrderException;
import org.fencekit.store.WriteResult;
import org.fencekit.store.spi.Validate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Fulfils Checkout sessions exactly once over an {@link OrderStore}: the part of a webhook handler
 * where the incident's bugs lived, written once.
 *
 * <p>For a paid {@code checkout.session.completed} (or {@code no_payment_required}) and for {@code
 * async_payment_succeeded}, {@link #handle}:
 *
 * <ol>
 *   <li>claims the order with the lease; {@code Provisioned} answers 200 (a duplicate), {@code
 *       InFlight} 409 (Stripe retries later), {@code Mismatch} 422 (another order under this
 *       session id: nothing bought, an operator must look);
 *   <li>calls the {@link Provider} on a provider thread with the order's idempotency key ({@link
 *       Purchase#idempotencyKeyFor}), the same for every attempt, so a retry after a crash gets the
 *       first purchase back;
 *   <li>while the call runs, extends the lease every {@code heartbeat} (fenced); when an extend is
 *       superseded, the call's {@link Ownership} turns false and its thread is interrupted;
 *   <li>bounds the call: it is cut off at {@code providerTimeout}, and before the lease it last
 *       renewed can run out ({@code heartbeat} ahead of it), so no other attempt can take over
 *       while this one still waits;
 *   <li>settles with the claim's token: an item is completed (200; superseded: the store kept an
 *       orphan, the {@link OrphanListener} is told, 200); a provider failure, or a call cut off, is
 *       failed with the error (500, the order is claimable again; superseded: harmless, 200);
 *   <li>retries a settle the store could not answer a bounded number of times (a replay answers
 *       {@code Written}, so this is safe), then answers 503; it never fails an order after a
 *       complete whose outcome is unknown.
 * </ol>
 *
 * A call that answers after it was cut off is still recorded: its item is completed with its token
 * (an orphan if another attempt owns the order by then), so no purchase goes unrecorded; its
 * failure adds nothing to the fail the delivery wrote when it cut the call off. Unpaid completions,
 * failed async payments and other event types answer 200 without claiming anything.
 *
 * <p>Safe for many threads; run one per process, any number of processes over one store. Build it
 * with {@link #builder(OrderStore, Provider)}; {@link #close()} stops the threads it made (not the
 * store).
 */
public final class FulfilmentHandler implements AutoCloseable {

  /** The lease a claim asks for unless told otherwise: two minutes. */
  public static final Duration DEFAULT_LEASE = Duration.ofMinutes(2);

  /** How long a provider call may take unless told otherwise (heartbeats permitting). */
  public static final Duration DEFAULT_PROVIDER_TIMEOUT = Duration.ofSeconds(90);

  /** How many times a settle is sent when the store does not answer, unless told otherwise. */
  public static final int DEFAULT_SETTLE_ATTEMPTS = 3;

  private static final Logger LOG = LoggerFactory.getLogger(FulfilmentHandler.class);

  final OrderStore store;
  final Provider provider;
  final Clock clock;
  final Duration lease;
  final Duration heartbeat;
  final Duration providerTimeout;
  final int settleAttempts;
  final Scheduler scheduler;
  final Executor providerExecutor;
  private final OrphanListener orphanListener;
  final FulfilmentMetrics metrics;
  private final ExecutorService ownedProviderExecutor;
  private final ScheduledThreadPoolExecutor ownedScheduler;
  private final AtomicBoolean closed = new AtomicBoolean();

  private FulfilmentHandler(Builder builder, Duration heartbeat) {
    this.store = builder.store;
    this.provider = builder.provider;
    this.clock = builder.clock;
    this.lease = builder.lease;
    this.heartbeat = heartbeat;
    this.providerTimeout = builder.providerTimeout;
    this.settleAttempts = builder.settleAttempts;
    this.orphanListener = builder.orphanListener;
    this.metrics = builder.metrics;
    if (builder.scheduler != null) {
      this.scheduler = builder.scheduler;
      this.ownedScheduler = null;
    } else {
      this.ownedScheduler = new ScheduledThreadPoolExecutor(2, daemonThreads("fencekit-heartbeat"));
      this.ownedScheduler.setRemoveOnCancelPolicy(true);
      this.scheduler = Scheduler.of(ownedScheduler);
    }
    if (builder.providerExecutor != null) {
      this.providerExecutor = builder.providerExecutor;
      this.ownedProviderExecutor = null;
    } else {
      this.ownedProviderExecutor =
          Executors.newCachedThreadPool(daemonThreads("fencekit-provider"));
      this.providerExecutor = ownedProviderExecutor;
    }
  }

  /**
   * A builder over the store orders live in and the provider that buys them.
   *
   * @param store the order store; not closed by the handler
   * @param provider what buys the items
   */
  public static Builder builder(OrderStore store, Provider provider) {
    return new Builder(store, provider);
  }

  /**
   * Handles one webhook delivery and says what to answer.
   *
   * @param event what the delivery says
   * @return what was done; {@link FulfilmentOutcome#httpStatus()} is the answer
   * @throws IllegalStateException if the handler was closed
   */
  public FulfilmentOutcome handle(CheckoutEvent event) {
    Objects.requireNonNull(event, "event");
    if (closed.get()) {
      throw new IllegalStateException(
          "this FulfilmentHandler is closed; build a new one to handle event " + event.eventId());
    }
    FulfilmentOutcome outcome =
        switch (event.type()) {
          case OTHER -> new FulfilmentOutcome.Ignored(event.typeName());
          case ASYNC_PAYMENT_FAILED -> {
            LOG.info(
                "event {}: the delayed payment for order {} failed; nothing bought",
                event.eventId(),
                event.sessionId());
            yield new FulfilmentOutcome.PaymentFailed(event.sessionId());
          }
          case COMPLETED ->
              event.paymentStatus().settled()
                  ? fulfil(event)
                  : new FulfilmentOutcome.AwaitingPayment(event.sessionId());
          case ASYNC_PAYMENT_SUCCEEDED -> fulfil(event);
        };
    metrics.delivery(outcome);
    LOG.debug(
        "event {} ({}): {} {}",
        event.eventId(),
        event.typeName(),
        outcome.httpStatus(),
        outcome.reason());
    return outcome;
  }

  private FulfilmentOutcome fulfil(CheckoutEvent event) {
    OrderSnapshot snapshot = event.snapshot();
    Instant sent = clock.instant();
    ClaimResult claim;
    try {
      claim = storeCall("claim", () -> store.claim(snapshot, lease));
    } catch (StoreUnavailableException e) {
      LOG.warn("event {}: cannot claim order {}: {}", event.eventId(), snapshot.sessionId(), e);
      return new FulfilmentOutcome.StoreUnavailable(
          snapshot.sessionId(), "claim", e.outcomeUnknown(), e.getMessage());
    }
    if (claim instanceof ClaimResult.Provisioned provisioned) {
      metrics.claim("provisioned");
      return new FulfilmentOutcome.Duplicate(provisioned.record());
    }
    if (claim instanceof ClaimResult.InFlight inFlight) {
      metrics.claim("in_flight");
      return new FulfilmentOutcome.InFlight(inFlight.record());
    }
    if (claim instanceof ClaimResult.Mismatch mismatch) {
      metrics.claim("mismatch");
      FulfilmentOutcome.Mismatch outcome =
          new FulfilmentOutcome.Mismatch(mismatch.record(), mismatch.fields());
      LOG.error(
          "event {}: {}; the order is {} under its first snapshot; `fencekit-admin orders"
              + " mismatches` lists both",
          event.eventId(),
          outcome.reason(),
          mismatch.record().status());
      return outcome;
    }
    metrics.claim("claimed");
    ClaimId claimId = ((ClaimResult.Claimed) claim).claimId();
    LOG.info(
        "event {}: claimed order {} as {} until {}",
        event.eventId(),
        snapshot.sessionId(),
        claimId,
        claim.record().leaseExpiresAt());
    return new Attempt(this, snapshot, claimId, sent.plus(lease)).run();
  }

  /** Stops the threads the handler made; a provider call still running is left to finish. */
  @Override
  public void close() {
    if (closed.compareAndSet(false, true)) {
      if (ownedProviderExecutor != null) {
        ownedProviderExecutor.shutdown();
      }
      if (ownedScheduler != null) {
        ownedScheduler.shutdown();
      }
    }
  }

  @Override
  public String toString() {
    return "FulfilmentHandler[store=%s, lease=%s, heartbeat=%s, providerTimeout=%s]"
        .formatted(store, lease, heartbeat, providerTimeout);
  }

  /** One store call, timed, its failure counted. */
  <T> T storeCall(String operation, Supplier<T> call) {
    long start = System.nanoTime();
    try {
      return call.get();
    } catch (StoreUnavailableException e) {
      metrics.storeError(operation, e.outcomeUnknown());
      throw e;
    } catch (UnknownOrderException e) {
      metrics.storeError(operation, false);
      throw e;
    } finally {
      metrics.storeCall(operation, Duration.ofNanos(System.nanoTime() - start));
    }
  }

  WriteResult settle(String operation, String sessionId, Supplier<WriteResult> write) {
    StoreUnavailableException last = null;
    for (int attempt = 1; attempt <= settleAttempts; attempt++) {
      try {
        WriteResult result = storeCall(operation, write);
        metrics.settle(operation, result instanceof WriteResult.Written ? "written" : "superseded");
        return result;
      } catch (StoreUnavailableException e) {
        last = e;
        LOG.warn(
            "{} of order {}: the store did not answer (try {} of {}, outcome {}): {}",
            operation,
            sessionId,
            attempt,
            settleAttempts,
            e.outcomeUnknown() ? "unknown" : "nothing written",
            e.getMessage());
      }
    }
    throw last;
  }

  OrphanReport reportOrphan(String sessionId, ClaimId claimId, Item item, OrderRecord now) {
    OrphanReport report = new OrphanReport(sessionId, claimId, item, now);
    metrics.orphan(report.samePurchase());
    if (report.samePurchase()) {
      LOG.warn("orphaned purchase: {}", report.describe());
    } else {
      LOG.error("orphaned purchase: {}", report.describe());
    }
    if (orphanListener != null) {
      try {
        orphanListener.orphaned(report);
      } catch (RuntimeException e) {
        LOG.error("the orphan listener threw on order {}: {}", sessionId, e.toString(), e);
      }
    }
    return report;
  }

  private static ThreadFactory daemonThreads(String name) {
    AtomicInteger count = new AtomicInteger();
    return task -> {
      Thread thread = new Thread(task, name + "-" + count.incrementAndGet());
      thread.setDaemon(true);
      return thread;
    };
  }

  /**
   * Builds a {@link FulfilmentHandler}; {@link #build()} checks every setting and names the bad
   * one.
   */
  public static final class Builder {

    final OrderStore store;
    final Provider provider;
    private Clock clock = Clock.systemUTC();
    private Duration lease = DEFAULT_LEASE;
    private Duration heartbeat;
    private Duration providerTimeout = DEFAULT_PROVIDER_TIMEOUT;
    private int settleAttempts = DEFAULT_SETTLE_ATTEMPTS;
    private Scheduler scheduler;
    private Executor providerExecutor;
    private OrphanListener orphanListener;
    private FulfilmentMetrics metrics = FulfilmentMetrics.NONE;

    private Builder(OrderStore store, Provider provider) {
      this.store = Objects.requireNonNull(store, "store");
      this.provider = Objects.requireNonNull(provider, "provider");
    }

    /** The clock deadlines are computed on; the system clock by default. */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /** The lease each claim asks for; {@link #DEFAULT_LEASE} by default; 1 ms to 24 h. */
    public Builder lease(Duration lease) {
      this.lease = Objects.requireNonNull(lease, "lease");
      return this;
    }

    /**
     * How often a running provider call's lease is extended; a quarter of the lease by default. At
     * most a third of the lease, so one lost heartbeat never lets the lease run out and the call is
     * still cut off a heartbeat before it would.
     */
    public Builder heartbeat(Duration heartbeat) {
      this.heartbeat = Objects.requireNonNull(heartbeat, "heartbeat");
      return this;
    }

    /**
     * The longest a provider call may take, heartbeats permitting; {@link
     * #DEFAULT_PROVIDER_TIMEOUT} by default. A call is also cut off one heartbeat before the lease
     * it renewed last would run out, so it never outlives its ownership.
     */
    public Builder providerTimeout(Duration providerTimeout) {
      this.providerTimeout = Objects.requireNonNull(providerTimeout, "providerTimeout");
      return this;
    }

    /**
     * How many times a complete or fail is sent when the store does not answer; {@link
     * #DEFAULT_SETTLE_ATTEMPTS} by default; 1 to 10. Each try is bounded by the store's own
     * timeouts.
     */
    public Builder settleAttempts(int settleAttempts) {
      this.settleAttempts = settleAttempts;
      return this;
    }

    /**
     * Where heartbeats and deadlines run; by default two daemon threads of the handler's own,
     * stopped by {@link FulfilmentHandler#close()}. Tests pass a scheduler they drive.
     */
    public Builder scheduler(Scheduler scheduler) {
      this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
      return this;
    }

    /**
     * Where provider calls run; by default a pool of daemon threads of the handler's own. A bounded
     * executor that refuses a call fails the order with "nothing bought".
     */
    public Builder providerExecutor(Executor providerExecutor) {
      this.providerExecutor = Objects.requireNonNull(providerExecutor, "providerExecutor");
      return this;
    }

    /** Told of every orphaned purchase, besides the ERROR log line; none by default. */
    public Builder orphanListener(OrphanListener orphanListener) {
      this.orphanListener = Objects.requireNonNull(orphanListener, "orphanListener");
      return this;
    }

    /**
     * Where the handler reports what it does ({@link MicrometerMetrics} for a Micrometer registry);
     * nothing by default.
     */
    public Builder metrics(FulfilmentMetrics metrics) {
      this.metrics = Objects.requireNonNull(metrics, "metrics");
      return this;
    }

    /**
     * The handler.
     *
     * @throws IllegalArgumentException naming the setting that is out of range
     */
    public FulfilmentHandler build() {
      Validate.lease(lease);
      Duration beat = heartbeat != null ? heartbeat : lease.dividedBy(4);
      if (beat.isNegative() || beat.isZero() || beat.multipliedBy(3).compareTo(lease) > 0) {
        throw new IllegalArgumentException(
            ("heartbeat must be more than 0 and at most a third of the lease (%s), got %s: a"
                    + " heartbeat that comes later lets the lease run out under a live call")
                .formatted(lease, beat));
      }
      if (providerTimeout.isNegative()
          || providerTimeout.isZero()
          || providerTimeout.compareTo(OrderStore.MAX_LEASE) > 0) {
        throw new IllegalArgumentException(
            "providerTimeout must be more than 0 and at most 24 h, got " + providerTimeout);
      }
      if (settleAttempts < 1 || settleAttempts > 10) {
        throw new IllegalArgumentException("settleAttempts must be 1 to 10, got " + settleAttempts);
      }
      return new FulfilmentHandler(this, beat);
    }
  }
}
