package org.fencekit.fulfilment.scenarios;

import java.util.UUID;
import org.fencekit.fulfilment.CheckoutEvent;
import org.fencekit.fulfilment.EventType;
import org.fencekit.fulfilment.FulfilmentHandler;
import org.fencekit.fulfilment.PaymentStatus;
import org.fencekit.fulfilment.Provider;
import org.fencekit.fulfilment.Purchase;
import org.fencekit.fulfilment.Scheduler;
import org.fencekit.store.ClaimId;
import org.fencekit.store.ForwardingOrderStore;
import org.fencekit.store.Item;
import org.fencekit.store.OrderStore;
import org.fencekit.store.StoreUnavailableException;
import org.fencekit.store.WriteResult;

/**
 * fencekit's handler with one deliberate mistake each, made from outside (a wrapped provider,
 * store, scheduler, listener or event), and the scenario that must catch it.
 */
enum WrongHandler implements HandlerFactory {

  /** A new idempotency key per attempt, so a retry after a crash buys again. */
  NO_IDEMPOTENCY_KEY(Scenario.S05_CRASH_AFTER_PURCHASE) {
    @Override
    public HandlerUnderTest create(HandlerContext context) {
      Provider freshKeys =
          purchase ->
              context
                  .provider()
                  .buy(
                      new Purchase(
                          purchase.snapshot(),
                          "attempt-" + UUID.randomUUID(),
                          purchase.ownership()));
      return HandlerUnderTest.of(
          context.configure(FulfilmentHandler.builder(context.store(), freshKeys)).build());
    }
  },

  /** Fails the order when a complete's outcome is unknown. */
  FAIL_AFTER_UNKNOWN_COMPLETE(Scenario.S09_STORE_DOWN_DURING_COMPLETE) {
    @Override
    public HandlerUnderTest create(HandlerContext context) {
      OrderStore failing = new FailsAfterUnknownComplete(context.store());
      return HandlerUnderTest.of(
          context.configure(FulfilmentHandler.builder(failing, context.provider())).build());
    }
  },

  /** Never extends the lease during a slow provider call. */
  NO_HEARTBEAT(Scenario.S11_SLOW_CALL_HEARTBEATS) {
    @Override
    public HandlerUnderTest create(HandlerContext context) {
      Scheduler withoutHeartbeats =
          (name, delay, task) ->
              name.equals("heartbeat") ? () -> {} : context.scheduler().schedule(name, delay, task);
      return HandlerUnderTest.of(context.fulfilmentHandler().scheduler(withoutHeartbeats).build());
    }
  },

  /** Answers a superseded complete without reporting the orphaned purchase. */
  IGNORES_SUPERSEDED_COMPLETE(Scenario.S03_STALE_COMPLETION) {
    @Override
    public HandlerUnderTest create(HandlerContext context) {
      return HandlerUnderTest.of(context.fulfilmentHandler().orphanListener(report -> {}).build());
    }
  },

  /** Takes an unpaid completion for paid. */
  FULFILS_UNPAID(Scenario.S06_UNPAID_THEN_PAID) {
    @Override
    public HandlerUnderTest create(HandlerContext context) {
      HandlerUnderTest right = HandlerUnderTest.of(context.fulfilmentHandler().build());
      return event ->
          right.handle(
              event.type() == EventType.COMPLETED
                  ? CheckoutEvent.completed(event.eventId(), PaymentStatus.PAID, event.snapshot())
                  : event);
    }
  };

  private final Scenario catchingScenario;

  WrongHandler(Scenario catchingScenario) {
    this.catchingScenario = catchingScenario;
  }

  /** The scenario named for this mistake. */
  Scenario catchingScenario() {
    return catchingScenario;
  }

  /** A store that, when a complete's outcome is unknown, sends a fail for the same token. */
  private static final class FailsAfterUnknownComplete extends ForwardingOrderStore {
    FailsAfterUnknownComplete(OrderStore store) {
      super(store);
    }

    @Override
    public WriteResult complete(String sessionId, ClaimId claimId, Item item) {
      try {
        return super.complete(sessionId, claimId, item);
      } catch (StoreUnavailableException e) {
        if (e.outcomeUnknown()) {
          try {
            super.fail(sessionId, claimId, "complete failed: " + e.getMessage());
          } catch (RuntimeException ignored) {
            // the mistake is sending it at all
          }
        }
        throw e;
      }
    }

    @Override
    public void close() {}
  }
}
