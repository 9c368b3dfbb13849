package org.fencekit.fulfilment.scenarios;

import java.lang.reflect.Method;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.fencekit.history.ManualClock;
import org.fencekit.store.OrderStore;
import org.fencekit.store.memory.MemoryOrderStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;

/**
 * The scenario kit: replays the failure sequences of {@link Scenario} against your Checkout webhook
 * handler. Extend it with one method that builds your handler from a {@link HandlerContext} (store,
 * provider, clock, scheduler, ...):
 *
 * <pre>{@code
 * class MyHandlerScenariosTest extends FulfilmentScenarios {
 *   @Override
 *   protected HandlerUnderTest newHandler(HandlerContext context) {
 *     return new MyWebhookHandler(context.store(), context.provider(), context.clock(),
 *         context.scheduler(), context.providerExecutor(), context.orphanListener())::handle;
 *   }
 * }
 * }</pre>
 *
 * <p>Each test is one scenario on a fresh store (a {@link MemoryOrderStore} unless {@link
 * #newStore} says otherwise) and a {@link ManualClock}; each "instance" of a scenario is a process
 * of your service, built by {@link #newHandler}. A failure says what the handler did wrong, prints
 * what it did step by step, and a JUnit test that replays the run, ready to paste into this class.
 * With {@code -Dfencekit.scenarios.print=true} every run's steps are printed, passed or not.
 */
@DisplayNameGeneration(FulfilmentScenarios.RuleNames.class)
public abstract class FulfilmentScenarios {

  private final List<AutoCloseable> toClose = new ArrayList<>();

  /** For subclasses. */
  protected FulfilmentScenarios() {}

  /**
   * A handler instance built from {@code context}: use its store, provider, clock, scheduler,
   * provider executor, orphan listener and timings.
   *
   * @throws Exception if it cannot be built (the scenario errors)
   */
  protected abstract HandlerUnderTest newHandler(HandlerContext context) throws Exception;

  /**
   * The store a scenario runs on, whose leases run on {@code clock}; a new {@link MemoryOrderStore}
   * by default. Override to run the scenarios on your backend; the kit closes it after the
   * scenario, and uses unique session ids, so it may hold other orders.
   */
  protected OrderStore newStore(Clock clock) throws Exception {
    return new MemoryOrderStore(clock);
  }

  /**
   * Whether answers must be fencekit's exact statuses (200, 409, 422, 500, 503); false by default:
   * an answer is judged by its effect on Stripe, any 2xx where the rule is "Stripe stops", any
   * other status (or an exception) where it is "Stripe retries". Override to return true if you
   * promise fencekit's table.
   */
  protected boolean exactStatuses() {
    return false;
  }

  /** How long, in real time, a scenario waits for the handler's threads; 10 s by default. */
  protected Duration patience() {
    return Duration.ofSeconds(10);
  }

  /**
   * A run of your own, for a replay a failure printed or a scenario of your own: its steps drive
   * the world ({@code run.instance("A")}, {@code run.paid("order")}, {@code run.advance(...)}),
   * {@code run.expect()} checks what the handler did. Closed by the caller (try-with-resources).
   *
   * @param id a name for messages
   */
  protected ScenarioRun newRun(String id) {
    try {
      ManualClock clock = new ManualClock(ScenarioRun.START);
      OrderStore store = newStore(clock);
      toClose.add(store);
      return new ScenarioRun(id, this::newHandler, store, clock, patience())
          .exactStatuses(exactStatuses());
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException(getClass().getName() + ".newStore(clock) failed: " + e, e);
    }
  }

  /** Plays one scenario on a new run. */
  protected void play(Scenario scenario) {
    try (ScenarioRun run = newRun(scenario.id())) {
      scenario.play(run);
      if (Boolean.getBoolean("fencekit.scenarios.print")) {
        System.out.printf(
            "scenario %s (%s):\n%s%n", scenario.id(), getClass().getSimpleName(), run.timeline());
      }
    }
  }

  /** Closes the stores the test's runs used. */
  @AfterEach
  final void closeStores() throws Exception {
    for (AutoCloseable closeable : toClose) {
      closeable.close();
    }
    toClose.clear();
  }

  @Test
  void s01_concurrentDeliveriesBuyOnce() {
    play(Scenario.S01_CONCURRENT_DELIVERIES);
  }

  @Test
  void s02_leaseOverrunCannotUndoProvisioned() {
    play(Scenario.S02_LEASE_OVERRUN);
  }

  @Test
  void s03_staleCompletionIsReportedOrphan() {
    play(Scenario.S03_STALE_COMPLETION);
  }

  @Test
  void s04_crashBeforePurchaseRetryBuysOnce() {
    play(Scenario.S04_CRASH_BEFORE_PURCHASE);
  }

  @Test
  void s05_crashAfterPurchaseRetryGetsSameItem() {
    play(Scenario.S05_CRASH_AFTER_PURCHASE);
  }

  @Test
  void s06_unpaidThenAsyncSucceededBuysOnceAfterPayment() {
    play(Scenario.S06_UNPAID_THEN_PAID);
  }

  @Test
  void s07_asyncPaymentFailedBuysNothing() {
    play(Scenario.S07_ASYNC_PAYMENT_FAILED);
  }

  @Test
  void s08_duplicateDeliveryAfterSuccessBuysNothing() {
    play(Scenario.S08_DUPLICATE_AFTER_SUCCESS);
  }

  @Test
  void s09_storeDownDuringCompleteNeverFailsAndBuysOnce() {
    play(Scenario.S09_STORE_DOWN_DURING_COMPLETE);
  }

  @Test
  void s10_providerFailureThenRetryProvisionsKeepingError() {
    play(Scenario.S10_PROVIDER_FAILURE_THEN_RETRY);
  }

  @Test
  void s11_slowCallHeartbeatsKeepOneOwner() {
    play(Scenario.S11_SLOW_CALL_HEARTBEATS);
  }

  @Test
  void s12_redeliveryWithNewEventIdBuysOnce() {
    play(Scenario.S12_REDELIVERY_NEW_EVENT_ID);
  }

  @Test
  void s13_paymentEventsInAnyOrderBuyOnceAfterPayment() {
    play(Scenario.S13_PAYMENT_EVENTS_IN_ANY_ORDER);
  }

  @Test
  void s14_freeOrderIsFulfilled() {
    play(Scenario.S14_FREE_ORDER);
  }

  @Test
  void s15_unknownProviderOutcomeRetriedWithSameKey() {
    play(Scenario.S15_UNKNOWN_PROVIDER_OUTCOME);
  }

  @Test
  void s16_retryInSameProcessSettlesWithNewToken() {
    play(Scenario.S16_RETRY_IN_SAME_PROCESS);
  }

  @Test
  void s17_eachHeartbeatKeepsOrderForFullLease() {
    play(Scenario.S17_HEARTBEAT_KEEPS_FULL_LEASE);
  }

  @Test
  void s18_supersededHeartbeatStopsAndTellsCall() {
    play(Scenario.S18_SUPERSEDED_HEARTBEAT);
  }

  @Test
  void s19_twoOrdersOfOneCartBuyTwice() {
    play(Scenario.S19_TWO_ORDERS_ONE_CART);
  }

  @Test
  void s20_callCutOffBeforeUnrenewedLeaseLapses() {
    play(Scenario.S20_CUT_OFF_BEFORE_LEASE_LAPSES);
  }

  @Test
  void s21_hungProviderCallGivenUpAtTimeout() {
    play(Scenario.S21_PROVIDER_TIMEOUT);
  }

  @Test
  void s22_boughtWhatWasOrdered() {
    play(Scenario.S22_BOUGHT_WHAT_WAS_ORDERED);
  }

  @Test
  void s24_otherCartUnderOneSessionBuysNothing() {
    play(Scenario.S24_OTHER_CART_UNDER_ONE_SESSION);
  }

  /** Names each scenario's test by its rule in plain words ({@link Scenario#rule()}). */
  static final class RuleNames extends DisplayNameGenerator.Standard {
    @Override
    public String generateDisplayNameForMethod(
        List<Class<?>> enclosingInstanceTypes, Class<?> testClass, Method testMethod) {
      for (Scenario scenario : Scenario.values()) {
        if (scenario.id().equals(testMethod.getName())) {
          return scenario.rule();
        }
      }
      return super.generateDisplayNameForMethod(enclosingInstanceTypes, testClass, testMethod);
    }
  }
}
