package org.fencekit.fulfilment.scenarios;

import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.IntUnaryOperator;
import java.util.function.ToIntFunction;
import java.util.function.UnaryOperator;
import org.fencekit.fulfilment.CheckoutEvent;
import org.fencekit.fulfilment.EventType;
import org.fencekit.fulfilment.FulfilmentHandler;
import org.fencekit.fulfilment.FulfilmentOutcome;
import org.fencekit.fulfilment.PaymentStatus;
import org.fencekit.fulfilment.Provider;
import org.fencekit.fulfilment.ProviderException;
import org.fencekit.fulfilment.Purchase;
import org.fencekit.fulfilment.Scheduler;
import org.fencekit.store.ClaimId;
import org.fencekit.store.ClaimResult;
import org.fencekit.store.ForwardingOrderStore;
import org.fencekit.store.Item;
import org.fencekit.store.OrderSnapshot;
import org.fencekit.store.OrderStore;
import org.fencekit.store.StoreUnavailableException;
import org.fencekit.store.WriteResult;

/**
 * fencekit's handler with one realistic mistake each, made from outside (a wrapped provider, store,
 * scheduler, listener, event or answer), the scenario named for it, which must catch it on every
 * run, and what that scenario's failure must say (so a wrong handler is never passed off as caught
 * by a failure that has nothing to do with its mistake).
 */
enum WrongHandler implements HandlerFactory {

  // ------------------------------------------------------------------ idempotency keys

  /** A new idempotency key per attempt, so a retry after a crash buys again. */
  NO_IDEMPOTENCY_KEY(Scenario.S05_CRASH_AFTER_PURCHASE, "bought more than once") {
    @Override
    public HandlerUnderTest create(HandlerContext context) {
      return withKey(context, purchase -> "attempt-" + UUID.randomUUID());
    }
  },

  /** The key carries the claim's token: each new claim buys again. */
  KEY_PER_CLAIM(Scenario.S05_CRASH_AFTER_PURCHASE, "bought more than once") {
    @Override
    public HandlerUnderTest create(HandlerContext context) {
      return withKey(
          context, p -> p.sessionId() + "-" + p.ownership().claimId().fence() + "-attempt");
    }
  },

  /** The key is the event id: a redelivery under a new event id buys again. */
  KEY_PER_EVENT(Scenario.S15_UNKNOWN_PROVIDER_OUTCOME, "bought more than once") {
    @Override
    public HandlerUnderTest create(HandlerContext context) {
      Map<String, String> eventOf = new ConcurrentHashMap<>();
      HandlerUnderTest handler = withKey(context, p -> "event-" + eventOf.get(p.sessionId()));
      return closing(
          handler,
          event -> {
            if (event.sessionId() != null) {
              eventOf.put(event.sessionId(), event.eventId());
            }
            return handler.handle(event);
          });
    }
  },

  /** The key names the process as well as the order: a retry on another instance buys again. */
  KEY_PER_INSTANCE(Scenario.S15_UNKNOWN_PROVIDER_OUTCOME, "bought more than once") {
    @Override
    public HandlerUnderTest create(HandlerContext context) {
      return withKey(context, p -> context.instance() + "-" + p.sessionId());
    }
  },

  /** The key names the cart (product, quantity, customer): a second order gets the first's item. */
  KEY_PER_CART(Scenario.S19_TWO_ORDERS_ONE_CART, "sent the idempotency key of order") {
    @Override
    public HandlerUnderTest create(HandlerContext context) {
      return withKey(
          context,
          p -> {
            OrderSnapshot order = p.snapshot();
            return order.productId() + "x" + order.quantity() + "-" + order.customerEmail();
          });
    }
  },

  // ------------------------------------------------------------------ what is bought

  /** One item per order: the provider client never passes the session's quantity. */
  BUYS_ONE_ITEM(Scenario.S22_BOUGHT_WHAT_WAS_ORDERED, "asked for esim-world-10gb x1 for 8997") {
    @Override
    public HandlerUnderTest create(HandlerContext context) {
      return withGoods(context, product -> product, quantity -> 1);
    }
  },

  /** The product the shop started with, hard-coded, whatever the session's metadata says. */
  DEFAULT_PRODUCT(Scenario.S22_BOUGHT_WHAT_WAS_ORDERED, "asked for esim-eu-5gb x3 for 8997") {
    @Override
    public HandlerUnderTest create(HandlerContext context) {
      return withGoods(context, product -> "esim-eu-5gb", quantity -> quantity);
    }
  },

  // ------------------------------------------------------------------ another cart, one session

  /**
   * Over a store as it was before issue 40 (a different cart under a stored session id ignored, the
   * first kept): a failed order's claim is granted to the other cart, which is bought under the
   * order's own key.
   */
  BUYS_OTHER_CART_UNDER_FIRST_KEY(
      Scenario.S24_OTHER_CART_UNDER_ONE_SESSION,
      "the other cart delivered under the order's" + " session id, under the order's own key") {
    @Override
    public HandlerUnderTest create(HandlerContext context) {
      return withStore(context, new FirstSnapshotKept(context.store()));
    }
  },

  /**
   * Takes every cart delivered for a session for an order of its own: keys each purchase by the
   * session and the cart, over a store that ignores another cart.
   */
  BUYS_EVERY_CART(
      Scenario.S24_OTHER_CART_UNDER_ONE_SESSION,
      "the other cart delivered under the order's session id, under another key") {
    @Override
    public HandlerUnderTest create(HandlerContext context) {
      Provider perCart =
          purchase ->
              context
                  .provider()
                  .buy(
                      new Purchase(
                          purchase.snapshot(),
                          purchase.sessionId()
                              + "-"
                              + purchase.productId()
                              + "x"
                              + purchase.quantity(),
                          purchase.ownership()));
      return HandlerUnderTest.of(
          context
              .configure(FulfilmentHandler.builder(new FirstSnapshotKept(context.store()), perCart))
              .build());
    }
  },

  /** A different order under the session id is answered 200 ("a duplicate"): nobody looks. */
  OK_ON_MISMATCH(Scenario.S24_OTHER_CART_UNDER_ONE_SESSION, "answered 200, expected a non-2xx") {
    @Override
    public HandlerUnderTest create(HandlerContext context) {
      return answering(context, FulfilmentOutcome.Kind.MISMATCH, 200);
    }
  },

  // ------------------------------------------------------------------ which events are paid

  /** Takes an unpaid completion for paid. */
  FULFILS_UNPAID(Scenario.S06_UNPAID_THEN_PAID, "bought before the scenario allowed it") {
    @Override
    public HandlerUnderTest create(HandlerContext context) {
      return withEvents(
          context,
          event ->
              event.type() == EventType.COMPLETED
                  ? CheckoutEvent.completed(event.eventId(), PaymentStatus.PAID, event.snapshot())
                  : event);
    }
  },

  /** Only checkout.session.completed is handled; async_payment_succeeded is acknowledged. */
  IGNORES_ASYNC_SUCCEEDED(Scenario.S06_UNPAID_THEN_PAID, "bought 0 item(s)") {
    @Override
    public HandlerUnderTest create(HandlerContext context) {
      return withEvents(
          context,
          event ->
              event.type() == EventType.ASYNC_PAYMENT_SUCCEEDED
                  ? CheckoutEvent.other(event.eventId(), event.typeName())
                  : event);
    }
  },

  /** async_payment_failed is taken for a payment: it buys. */
  FULFILS_FAILED_PAYMENT(
      Scenario.S07_ASYNC_PAYMENT_FAILED, "bought before the scenario allowed it") {
    @Override
    public HandlerUnderTest create(HandlerContext context) {
      return withEvents(
          context,
          event ->
              event.type() == EventType.ASYNC_PAYMENT_FAILED
                  ? CheckoutEvent.asyncPaymentSucceeded(event.eventId(), event.snapshot())
                  : event);
    }
  },

  /**
   * async_payment_succeeded is fulfilled only for a session this process saw announced unpaid: one
   * that came first, alone, or to another instance is lost.
   */
  PAID_ONLY_IF_SEEN_UNPAID(Scenario.S13_PAYMENT_EVENTS_IN_ANY_ORDER, "bought 0 item(s)") {
    @Override
    public HandlerUnderTest create(HandlerContext context) {
      Set<String> awaiting = ConcurrentHashMap.newKeySet();
      HandlerUnderTest right = fencekit(context);
      return closing(
          right,
          event -> {
            if (event.type() == EventType.COMPLETED
                && event.paymentStatus() == PaymentStatus.UNPAID) {
              awaiting.add(event.sessionId());
            }
            if (event.type() == EventType.ASYNC_PAYMENT_SUCCEEDED
                && !awaiting.contains(event.sessionId())) {
              return 200; // "no pending order for this session"
            }
            return right.handle(event);
          });
    }
  },

  /** Fulfils only payment_status paid: a free order (no_payment_required) waits forever. */
  FREE_ORDER_UNFULFILLED(Scenario.S14_FREE_ORDER, "bought 0 item(s)") {
    @Override
    public HandlerUnderTest create(HandlerContext context) {
      return withEvents(
          context,
          event ->
              event.paymentStatus() == PaymentStatus.NO_PAYMENT_REQUIRED
                  ? CheckoutEvent.completed(event.eventId(), PaymentStatus.UNPAID, event.snapshot())
                  : event);
    }
  },

  // ------------------------------------------------------------------ answers

  /** A provider call whose outcome is unknown is answered 200: Stripe stops, the order is lost. */
  OK_ON_UNKNOWN_OUTCOME(Scenario.S15_UNKNOWN_PROVIDER_OUTCOME, "answered 200, expected a non-2xx") {
    @Override
    public HandlerUnderTest create(HandlerContext context) {
      return answering(
          context,
          outcome ->
              outcome instanceof FulfilmentOutcome.ProviderFailed failed && !failed.nothingBought()
                  ? 200
                  : outcome.httpStatus());
    }
  },

  /** A provider refusal is answered 200 ("recorded as failed"): nobody retries the order. */
  OK_ON_PROVIDER_FAILURE(
      Scenario.S10_PROVIDER_FAILURE_THEN_RETRY, "answered 200, expected a non-2xx") {
    @Override
    public HandlerUnderTest create(HandlerContext context) {
      return answering(context, FulfilmentOutcome.Kind.PROVIDER_FAILED, 200);
    }
  },

  /** A store outage is answered 200 ("we will sort it out"): nobody retries the order. */
  OK_ON_STORE_OUTAGE(Scenario.S09_STORE_DOWN_DURING_COMPLETE, "answered 200, expected a non-2xx") {
    @Override
    public HandlerUnderTest create(HandlerContext context) {
      return answering(context, FulfilmentOutcome.Kind.STORE_UNAVAILABLE, 200);
    }
  },

  /** An order in flight is answered 200: if that attempt then fails, nobody retries. */
  OK_WHILE_IN_FLIGHT(Scenario.S01_CONCURRENT_DELIVERIES, "answered [200]") {
    @Override
    public HandlerUnderTest create(HandlerContext context) {
      return answering(context, FulfilmentOutcome.Kind.IN_FLIGHT, 200);
    }
  },

  /** A duplicate of a fulfilled order is answered 409: Stripe retries it for days. */
  RETRY_FOR_DUPLICATE(Scenario.S08_DUPLICATE_AFTER_SUCCESS, "answered 409, expected a 2xx") {
    @Override
    public HandlerUnderTest create(HandlerContext context) {
      return answering(context, FulfilmentOutcome.Kind.DUPLICATE, 409);
    }
  },

  /**
   * Skips an event id it has seen before (a "processed events" table written on receipt): Stripe's
   * retry of a failed delivery is answered 200 and the order never fulfilled.
   */
  DEDUPES_BY_EVENT_ID(Scenario.S10_PROVIDER_FAILURE_THEN_RETRY, "bought 0 item(s)") {
    @Override
    public HandlerUnderTest create(HandlerContext context) {
      HandlerUnderTest right = fencekit(context);
      return closing(right, event -> PROCESSED.add(event.eventId()) ? right.handle(event) : 200);
    }
  },

  // ------------------------------------------------------------------ tokens and settles

  /** Fails the order when a complete's outcome is unknown. */
  FAIL_AFTER_UNKNOWN_COMPLETE(Scenario.S09_STORE_DOWN_DURING_COMPLETE, "never fail it") {
    @Override
    public HandlerUnderTest create(HandlerContext context) {
      return withStore(context, new FailsAfterUnknownComplete(context.store()));
    }
  },

  /** Settles with the token of the first claim this process made on the order, kept in a field. */
  STALE_TOKEN_CACHED(Scenario.S16_RETRY_IN_SAME_PROCESS, "the store kept orphans [prov-1]") {
    @Override
    public HandlerUnderTest create(HandlerContext context) {
      return withStore(context, new FirstTokenCached(context.store()));
    }
  },

  /** Answers a superseded complete without reporting the orphaned purchase. */
  IGNORES_SUPERSEDED_COMPLETE(Scenario.S03_STALE_COMPLETION, "reported orphans []") {
    @Override
    public HandlerUnderTest create(HandlerContext context) {
      return HandlerUnderTest.of(context.fulfilmentHandler().orphanListener(report -> {}).build());
    }
  },

  /** Reports each orphaned purchase twice (an alert in two places). */
  REPORTS_ORPHAN_TWICE(Scenario.S03_STALE_COMPLETION, "reported orphans [prov-2, prov-2]") {
    @Override
    public HandlerUnderTest create(HandlerContext context) {
      return HandlerUnderTest.of(
          context
              .fulfilmentHandler()
              .orphanListener(
                  report -> {
                    context.orphanListener().orphaned(report);
                    context.orphanListener().orphaned(report);
                  })
              .build());
    }
  },

  /**
   * Drops what a call bought after its attempt lost the order ("not ours any more"), claiming it
   * bought nothing: the purchase is never recorded as an orphan.
   */
  DISCARDS_LOST_PURCHASE(Scenario.S03_STALE_COMPLETION, "the store kept orphans []") {
    @Override
    public HandlerUnderTest create(HandlerContext context) {
      Provider discarding =
          purchase -> {
            Item item = context.provider().buy(purchase);
            if (!purchase.ownership().owned()) {
              throw ProviderException.nothingBought("the attempt lost the order; result dropped");
            }
            return item;
          };
      return HandlerUnderTest.of(
          context.configure(FulfilmentHandler.builder(context.store(), discarding)).build());
    }
  },

  // ------------------------------------------------------------------ heartbeats and deadlines

  /** Never extends the lease during a slow provider call. */
  NO_HEARTBEAT(Scenario.S11_SLOW_CALL_HEARTBEATS, "answered 500, expected a 2xx") {
    @Override
    public HandlerUnderTest create(HandlerContext context) {
      return withScheduler(
          context,
          (name, delay, task) ->
              name.equals("heartbeat")
                  ? () -> {}
                  : context.scheduler().schedule(name, delay, task));
    }
  },

  /** Each heartbeat extends by half a lease: the order lapses under a live call. */
  SHORT_EXTEND(Scenario.S17_HEARTBEAT_KEEPS_FULL_LEASE, "the store granted 2 claim(s)") {
    @Override
    public HandlerUnderTest create(HandlerContext context) {
      return withStore(
          context,
          new ForwardingOrderStore(context.store()) {
            @Override
            public WriteResult extend(String sessionId, ClaimId claimId, Duration lease) {
              return super.extend(sessionId, claimId, lease.dividedBy(2));
            }

            @Override
            public void close() {}
          });
    }
  },

  /**
   * Takes a heartbeat answered Superseded for a transient store error: the call is not told it lost
   * the order, and the heartbeat goes on.
   */
  IGNORES_SUPERSEDED_HEARTBEAT(Scenario.S18_SUPERSEDED_HEARTBEAT, "was not cut off") {
    @Override
    public HandlerUnderTest create(HandlerContext context) {
      return withStore(
          context,
          new ForwardingOrderStore(context.store()) {
            @Override
            public WriteResult extend(String sessionId, ClaimId claimId, Duration lease) {
              WriteResult result = super.extend(sessionId, claimId, lease);
              if (result instanceof WriteResult.Superseded) {
                throw new StoreUnavailableException(
                    "wrong-handler", "extend", sessionId, false, "taken for a blip", null);
              }
              return result;
            }

            @Override
            public void close() {}
          });
    }
  },

  /** Never cuts a provider call off: neither the lease nor the timeout bounds it. */
  NO_CUT_OFF(Scenario.S20_CUT_OFF_BEFORE_LEASE_LAPSES, "got no answer within") {
    @Override
    public HandlerUnderTest create(HandlerContext context) {
      return withScheduler(
          context,
          (name, delay, task) ->
              name.equals("provider deadline")
                  ? () -> {}
                  : context.scheduler().schedule(name, delay, task));
    }
  },

  /** Cuts the call off when the lease ends, not before: a retry may already have claimed it. */
  CUT_OFF_AT_LEASE_END(Scenario.S20_CUT_OFF_BEFORE_LEASE_LAPSES, "got no answer within") {
    @Override
    public HandlerUnderTest create(HandlerContext context) {
      return withScheduler(
          context,
          (name, delay, task) ->
              context
                  .scheduler()
                  .schedule(
                      name,
                      name.equals("provider deadline") ? delay.plus(context.heartbeat()) : delay,
                      task));
    }
  },

  /** No timeout on the provider call: a call that never answers holds the order forever. */
  NO_PROVIDER_TIMEOUT(Scenario.S21_PROVIDER_TIMEOUT, "got no answer within") {
    @Override
    public HandlerUnderTest create(HandlerContext context) {
      return HandlerUnderTest.of(
          context.fulfilmentHandler().providerTimeout(Duration.ofHours(24)).build());
    }
  };

  /** The event ids {@link #DEDUPES_BY_EVENT_ID} saw (unique per run: each run has its prefix). */
  private static final Set<String> PROCESSED = ConcurrentHashMap.newKeySet();

  private final Scenario catchingScenario;
  private final String effect;

  WrongHandler(Scenario catchingScenario, String effect) {
    this.catchingScenario = catchingScenario;
    this.effect = effect;
  }

  /** The scenario named for this mistake. */
  Scenario catchingScenario() {
    return catchingScenario;
  }

  /** What the scenario's failure must say: the mistake's effect, not some other breach. */
  String effect() {
    return effect;
  }

  // ------------------------------------------------------------------ how the mistakes are made

  private static HandlerUnderTest fencekit(HandlerContext context) {
    return HandlerUnderTest.of(context.fulfilmentHandler().build());
  }

  private static HandlerUnderTest withStore(HandlerContext context, OrderStore store) {
    return HandlerUnderTest.of(
        context.configure(FulfilmentHandler.builder(store, context.provider())).build());
  }

  private static HandlerUnderTest withScheduler(HandlerContext context, Scheduler scheduler) {
    return HandlerUnderTest.of(context.fulfilmentHandler().scheduler(scheduler).build());
  }

  /** fencekit's handler, buying with the key {@code key} makes of each purchase. */
  private static HandlerUnderTest withKey(
      HandlerContext context, java.util.function.Function<Purchase, String> key) {
    Provider keyed =
        purchase ->
            context
                .provider()
                .buy(new Purchase(purchase.snapshot(), key.apply(purchase), purchase.ownership()));
    return HandlerUnderTest.of(
        context.configure(FulfilmentHandler.builder(context.store(), keyed)).build());
  }

  /** fencekit's handler, asking the provider for the product and quantity made of each order's. */
  private static HandlerUnderTest withGoods(
      HandlerContext context, UnaryOperator<String> product, IntUnaryOperator quantity) {
    Provider rewritten =
        purchase -> {
          OrderSnapshot o = purchase.snapshot();
          OrderSnapshot asked =
              new OrderSnapshot(
                  o.sessionId(),
                  product.apply(o.productId()),
                  quantity.applyAsInt(o.quantity()),
                  o.customerEmail(),
                  o.amountTotal(),
                  o.currency());
          return context
              .provider()
              .buy(new Purchase(asked, purchase.idempotencyKey(), purchase.ownership()));
        };
    return HandlerUnderTest.of(
        context.configure(FulfilmentHandler.builder(context.store(), rewritten)).build());
  }

  /** fencekit's handler, seeing each event as {@code rewrite} makes it. */
  private static HandlerUnderTest withEvents(
      HandlerContext context, UnaryOperator<CheckoutEvent> rewrite) {
    HandlerUnderTest right = fencekit(context);
    return closing(right, event -> right.handle(rewrite.apply(event)));
  }

  /** fencekit's handler, answering {@code status} of each outcome. */
  static HandlerUnderTest answering(
      HandlerContext context, ToIntFunction<FulfilmentOutcome> status) {
    FulfilmentHandler handler = context.fulfilmentHandler().build();
    return closing(HandlerUnderTest.of(handler), event -> status.applyAsInt(handler.handle(event)));
  }

  /** fencekit's handler, answering {@code status} for outcomes of {@code kind}. */
  static HandlerUnderTest answering(
      HandlerContext context, FulfilmentOutcome.Kind kind, int status) {
    return answering(context, outcome -> outcome.kind() == kind ? status : outcome.httpStatus());
  }

  /** {@code body}, closing {@code inner} when the run ends. */
  static HandlerUnderTest closing(HandlerUnderTest inner, HandlerUnderTest body) {
    return new Wrapped(inner, body);
  }

  private record Wrapped(HandlerUnderTest inner, HandlerUnderTest body)
      implements HandlerUnderTest, AutoCloseable {
    @Override
    public int handle(CheckoutEvent event) throws Exception {
      return body.handle(event);
    }

    @Override
    public void close() {
      if (inner instanceof HandlerUnderTest.Closing closing) {
        closing.close();
      }
    }
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

  /**
   * A store as stores were before issue 40: a claim whose cart differs from the stored order's is
   * decided as if it carried the stored cart (the first snapshot kept, the other ignored).
   */
  private static final class FirstSnapshotKept extends ForwardingOrderStore {
    FirstSnapshotKept(OrderStore store) {
      super(store);
    }

    @Override
    public ClaimResult claim(OrderSnapshot snapshot, Duration lease) {
      ClaimResult result = super.claim(snapshot, lease);
      return result instanceof ClaimResult.Mismatch mismatch
          ? super.claim(mismatch.record().snapshot(), lease)
          : result;
    }

    @Override
    public void close() {}
  }

  /** A store client that keeps the first token it was granted per order and settles with it. */
  private static final class FirstTokenCached extends ForwardingOrderStore {
    private final Map<String, ClaimId> first = new ConcurrentHashMap<>();

    FirstTokenCached(OrderStore store) {
      super(store);
    }

    @Override
    public ClaimResult claim(OrderSnapshot snapshot, Duration lease) {
      ClaimResult result = super.claim(snapshot, lease);
      if (result instanceof ClaimResult.Claimed claimed) {
        first.putIfAbsent(snapshot.sessionId(), claimed.claimId());
      }
      return result;
    }

    @Override
    public WriteResult complete(String sessionId, ClaimId claimId, Item item) {
      return super.complete(sessionId, first.getOrDefault(sessionId, claimId), item);
    }

    @Override
    public WriteResult fail(String sessionId, ClaimId claimId, String error) {
      return super.fail(sessionId, first.getOrDefault(sessionId, claimId), error);
    }

    @Override
    public WriteResult extend(String sessionId, ClaimId claimId, Duration lease) {
      return super.extend(sessionId, first.getOrDefault(sessionId, claimId), lease);
    }

    @Override
    public void close() {}
  }
}
