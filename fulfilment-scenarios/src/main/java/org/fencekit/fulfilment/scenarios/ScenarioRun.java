package org.fencekit.fulfilment.scenarios;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiFunction;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.fencekit.fulfilment.CheckoutEvent;
import org.fencekit.fulfilment.OrphanReport;
import org.fencekit.fulfilment.PaymentStatus;
import org.fencekit.history.Answer;
import org.fencekit.history.Call;
import org.fencekit.history.History;
import org.fencekit.history.ManualClock;
import org.fencekit.history.Operation;
import org.fencekit.store.ClaimId;
import org.fencekit.store.Item;
import org.fencekit.store.OrderField;
import org.fencekit.store.OrderRecord;
import org.fencekit.store.OrderSnapshot;
import org.fencekit.store.OrderStatus;
import org.fencekit.store.OrderStore;

/**
 * One scenario's world: a test clock, one store, the fake provider, and handler instances (the
 * processes of the user's service) made by the user's {@link HandlerFactory}. Its methods are the
 * steps of a scenario; {@link #expect()} holds the checks on what the handler did. Each step and
 * check is recorded in the {@link Timeline} and as a line of a replay, and a failed check throws a
 * {@link ScenarioFailure} with both. Every store call an instance makes is recorded, with the
 * instance's name as its caller, in the run's {@link #history()}.
 *
 * <p>Time only moves by {@link #advance}, which runs every instance's due timers at their moment.
 * Waiting for other threads (an answer, a provider call, the handler going idle) is bounded by the
 * run's patience in real time; nothing waits in real time for a lease or a heartbeat.
 */
public final class ScenarioRun implements AutoCloseable {

  /** Where a run's clock starts unless the caller gives another: a fixed, recognisable instant. */
  public static final Instant START = Instant.parse("2026-09-14T12:00:00Z");

  /** The lease every handler instance of a run claims with. */
  public static final Duration LEASE = Duration.ofMinutes(2);

  /** How often handler instances extend the lease during a provider call. */
  public static final Duration HEARTBEAT = Duration.ofSeconds(30);

  /** The longest a provider call may run, heartbeats permitting. */
  public static final Duration PROVIDER_TIMEOUT = Duration.ofMinutes(10);

  private static final AtomicInteger RUNS = new AtomicInteger();

  private final HandlerFactory factory;
  private final OrderStore store;
  private final ManualClock clock;
  private final Duration patience;
  private final History history;
  private final Timeline timeline;
  private final Replay replay = new Replay();
  private final RunReport report;
  private final FakeProvider provider;
  private final RunThreads threads;
  private final Checks checks;
  private final String prefix;
  private final Map<String, Instance> instances = new LinkedHashMap<>();
  private final Map<String, OrderSnapshot> orders = new LinkedHashMap<>();
  private final List<OrderSnapshot> otherCarts = new ArrayList<>();
  private final List<OrphanReport> reports = new ArrayList<>();
  private final Map<CheckoutEvent, String> events = new IdentityHashMap<>();
  private int eventCount;
  private int deliveryCount;
  private int groupCount;

  /**
   * A run of the scenario {@code id}.
   *
   * @param id the scenario's id, for messages and the replay's name
   * @param factory makes each handler instance
   * @param store the store every instance shares; the caller closes it
   * @param clock the clock the store was built with
   * @param patience how long, in real time, to wait for other threads before failing
   */
  public ScenarioRun(
      String id, HandlerFactory factory, OrderStore store, ManualClock clock, Duration patience) {
    this.factory = factory;
    this.store = store;
    this.clock = clock;
    this.patience = patience;
    this.history = new History(clock);
    this.timeline = new Timeline(clock);
    this.report = new RunReport(id, timeline, replay);
    this.provider = new FakeProvider(this);
    this.threads = new RunThreads(patience, timeline, provider, report);
    this.checks = new Checks(this, threads);
    this.prefix = "cs_test_" + ClaimId.newNonce().substring(0, 8) + RUNS.incrementAndGet() + "_";
  }

  /**
   * Whether answers are checked against fencekit's exact statuses (200, 409, 422, 500, 503) instead
   * of by their effect on Stripe, the default: where a scenario's rule is "Stripe stops" any 2xx
   * passes, where it is "Stripe retries" any other status does (and an exception, which a server
   * answers 500).
   */
  public ScenarioRun exactStatuses(boolean exact) {
    checks.exactStatuses(exact);
    return this;
  }

  /** The checks on what the handler did in this run: {@code run.expect().purchases("order", 1)}. */
  public Checks expect() {
    return checks;
  }

  /** The run's clock; move it with {@link #advance}. */
  public ManualClock clock() {
    return clock;
  }

  /** The fake provider every instance calls. */
  public FakeProvider provider() {
    return provider;
  }

  /** What happened so far. */
  public Timeline timeline() {
    return timeline;
  }

  /**
   * Every store call the instances made so far, each with the instance's name as its caller; a call
   * the kit cut off carries the {@link org.fencekit.store.StoreUnavailableException} the instance
   * got.
   */
  public History history() {
    return history;
  }

  /** How long, in real time, the run waits for other threads. */
  public Duration patience() {
    return patience;
  }

  /** The handler instance called {@code name}, built by the factory on first use. */
  public Instance instance(String name) {
    Instance existing = instances.get(name);
    if (existing != null) {
      return existing;
    }
    Instance instance = new Instance(this, name);
    replay.line("Instance " + instance.var() + " = run.instance(" + Replay.quote(name) + ");");
    HandlerContext context =
        new HandlerContext(
            name,
            instance.store(),
            purchase -> provider.buy(instance, purchase),
            clock,
            instance.scheduler(),
            threads.providerExecutor(name),
            instance::reported,
            LEASE,
            HEARTBEAT,
            PROVIDER_TIMEOUT);
    try {
      instance.attach(factory.create(context));
    } catch (Exception e) {
      throw new IllegalStateException("the handler factory failed for instance " + name, e);
    }
    instances.put(name, instance);
    return instance;
  }

  /** The instances made so far, in the order they were made. */
  List<Instance> instances() {
    return List.copyOf(instances.values());
  }

  /**
   * The order called {@code name}: a Checkout session of its own, unique to this run, for one
   * {@code esim-eu-5gb} at 15.00 EUR unless {@link #order(String, String, int, long)} said
   * otherwise first.
   */
  public synchronized OrderSnapshot order(String name) {
    OrderSnapshot existing = orders.get(name);
    return existing != null ? existing : order(name, "esim-eu-5gb", 1, 1500);
  }

  /**
   * Makes the order called {@code name}, before any of its events: {@code quantity} of {@code
   * productId} for {@code amountTotal} cents (EUR). Every provider call for it must ask for exactly
   * these ({@link Checks#purchases}).
   *
   * @throws IllegalArgumentException if the order was made already
   */
  public synchronized OrderSnapshot order(
      String name, String productId, int quantity, long amountTotal) {
    if (orders.containsKey(name)) {
      throw new IllegalArgumentException(
          "order '" + name + "' was made already: make it before its first event");
    }
    String sessionId = prefix + name;
    OrderSnapshot order =
        new OrderSnapshot(sessionId, productId, quantity, "buyer@example.com", amountTotal, "eur");
    if (!(productId.equals("esim-eu-5gb") && quantity == 1 && amountTotal == 1500)) {
      replay.line(
          String.format(
              "run.order(%s, %s, %s, %s);",
              Replay.quote(name), Replay.quote(productId), quantity, amountTotal));
    }
    report.name(sessionId, name);
    orders.put(name, order);
    return order;
  }

  /**
   * A new paid {@code checkout.session.completed} event under the order's session id for another
   * cart: {@code quantity} of {@code productId} for {@code amountTotal} cents (EUR). It is a
   * different order under the same key, as when a shop keys orders by something that is not unique,
   * two shops share one store, or a release changed how metadata maps to a product: it must buy
   * nothing, and every provider call for the order must still ask for the order's own cart ({@link
   * Checks#purchases}).
   *
   * @throws IllegalArgumentException if the cart is the order's own
   */
  public CheckoutEvent otherCart(String order, String productId, int quantity, long amountTotal) {
    OrderSnapshot own = order(order);
    OrderSnapshot other =
        new OrderSnapshot(
            own.sessionId(), productId, quantity, own.customerEmail(), amountTotal, own.currency());
    if (OrderField.differing(own, other).isEmpty()) {
      throw new IllegalArgumentException(
          "order '" + order + "' sells " + FakeProvider.goods(own) + " already: name another cart");
    }
    synchronized (this) {
      otherCarts.add(other);
    }
    String args =
        String.format(
            "%s, %s, %s, %s", Replay.quote(order), Replay.quote(productId), quantity, amountTotal);
    return event(
        "otherCart",
        args,
        order,
        (id, o) -> CheckoutEvent.completed(id, PaymentStatus.PAID, other));
  }

  /** Whether {@code cart} is one {@link #otherCart} delivered under its order's session id. */
  synchronized boolean isOtherCart(OrderSnapshot cart) {
    return otherCarts.stream()
        .anyMatch(
            other ->
                other.sessionId().equals(cart.sessionId())
                    && OrderField.differing(other, cart).isEmpty());
  }

  /** The order of the session {@code sessionId}, or {@code null} if this run made none. */
  synchronized OrderSnapshot orderOf(String sessionId) {
    return orders.values().stream()
        .filter(order -> order.sessionId().equals(sessionId))
        .findFirst()
        .orElse(null);
  }

  /**
   * Whether the order {@code cart} is for is settled exactly once: the store holds it provisioned
   * with the provider's first purchase for it, the only one. An answer that stops Stripe is right
   * then, whatever else happened, unless {@code cart} is {@link #otherCart another cart} under the
   * order's session id. False when the store cannot say (a late answer after the run closed it):
   * never judged settled without seeing it.
   */
  boolean settledOnce(OrderSnapshot cart) {
    if (isOtherCart(cart)) {
      return false;
    }
    String sessionId = cart.sessionId();
    List<Item> items = provider.items(sessionId);
    try {
      return items.size() == 1
          && store
              .get(sessionId)
              .filter(r -> r.status() == OrderStatus.PROVISIONED)
              .filter(r -> items.get(0).equals(r.item()))
              .isPresent();
    } catch (RuntimeException e) {
      return false;
    }
  }

  /** The session id of the order called {@code name}. */
  public String sessionId(String name) {
    return order(name).sessionId();
  }

  /** A new {@code checkout.session.completed} event, paid, for the order. */
  public CheckoutEvent paid(String order) {
    return event("paid", order, (id, o) -> CheckoutEvent.completed(id, PaymentStatus.PAID, o));
  }

  /** A new {@code checkout.session.completed} event, not yet paid (a delayed method). */
  public CheckoutEvent unpaid(String order) {
    return event("unpaid", order, (id, o) -> CheckoutEvent.completed(id, PaymentStatus.UNPAID, o));
  }

  /**
   * A new {@code checkout.session.completed} event with nothing to pay ({@code
   * no_payment_required}: a free order, a 100% coupon), for the order.
   */
  public CheckoutEvent free(String order) {
    return event(
        "free",
        order,
        (id, o) -> CheckoutEvent.completed(id, PaymentStatus.NO_PAYMENT_REQUIRED, o));
  }

  /** A new {@code checkout.session.async_payment_succeeded} event for the order. */
  public CheckoutEvent asyncSucceeded(String order) {
    return event("asyncSucceeded", order, CheckoutEvent::asyncPaymentSucceeded);
  }

  /** A new {@code checkout.session.async_payment_failed} event for the order. */
  public CheckoutEvent asyncFailed(String order) {
    return event("asyncFailed", order, CheckoutEvent::asyncPaymentFailed);
  }

  /** A new event made by {@code make} from a new event id and the order, named in the replay. */
  private CheckoutEvent event(
      String kind, String order, BiFunction<String, OrderSnapshot, CheckoutEvent> make) {
    return event(kind, Replay.quote(order), order, make);
  }

  /** As {@link #event(String, String, BiFunction)}, the replay's call taking {@code args}. */
  private CheckoutEvent event(
      String kind,
      String args,
      String order,
      BiFunction<String, OrderSnapshot, CheckoutEvent> make) {
    String id = "evt_" + prefix.substring("cs_test_".length()) + (++eventCount);
    CheckoutEvent event = make.apply(id, order(order));
    String var = "e" + eventCount;
    events.put(event, var);
    replay.line("CheckoutEvent " + var + " = run." + kind + "(" + args + ");");
    return event;
  }

  /**
   * Delivers {@code event} to every instance at once (they start together at a barrier) and returns
   * the deliveries, in the order of {@code to}.
   */
  public List<Delivery> deliverTogether(CheckoutEvent event, Instance... to) {
    String var = "together" + (++groupCount);
    String args = Stream.of(to).map(i -> ", " + i.var()).collect(Collectors.joining());
    replay.line(
        "List<Delivery> " + var + " = run.deliverTogether(" + eventVar(event) + args + ");");
    CyclicBarrier barrier = new CyclicBarrier(to.length);
    List<Delivery> started = new ArrayList<>();
    for (int i = 0; i < to.length; i++) {
      started.add(threads.register(new Delivery(var + ".get(" + i + ")", to[i], event)));
    }
    for (Delivery delivery : started) {
      delivery.start(
          () -> {
            try {
              barrier.await();
            } catch (InterruptedException | BrokenBarrierException e) {
              Thread.currentThread().interrupt();
            }
          });
    }
    return started;
  }

  /**
   * Delivers {@code event} to {@code instance} on a new thread, named in the replay; if {@code
   * await}, waits for its answer, then for the handlers to go idle.
   */
  Delivery deliver(Instance instance, CheckoutEvent event, boolean await) {
    String var = "d" + (++deliveryCount);
    String how = await ? "deliverAndAwait" : "deliver";
    replay.line(
        "Delivery " + var + " = " + instance.var() + "." + how + "(" + eventVar(event) + ");");
    Delivery delivery = threads.register(new Delivery(var, instance, event));
    delivery.start(() -> {});
    if (await) {
      threads.awaitAnswer(delivery);
    }
    return delivery;
  }

  private String eventVar(CheckoutEvent event) {
    String var = events.get(event);
    if (var == null) {
      throw new IllegalArgumentException(
          "deliver events made by this run (run.paid(...), run.unpaid(...), ...), so the replay"
              + " can name them");
    }
    return var;
  }

  /**
   * Moves the clock forward by {@code duration}, running every instance's timers at the moment each
   * comes due (heartbeats, deadlines), and waits for the handlers to go idle after each.
   */
  public void advance(Duration duration) {
    replay.line("run.advance(Duration.parse(\"" + duration + "\"));");
    if (duration.isNegative()) {
      throw new IllegalArgumentException("the clock only moves forward, got " + duration);
    }
    quiesce();
    Instant target = clock.instant().plus(duration);
    timeline.add("kit", "moves the clock " + Timeline.format(duration) + " on");
    for (int steps = 0; ; steps++) {
      if (steps > 100_000) {
        throw failure("timers keep coming due: more than 100,000 in one advance");
      }
      Instant next =
          instances.values().stream()
              .map(instance -> instance.scheduler().nextDue())
              .filter(Objects::nonNull)
              .min(Comparator.naturalOrder())
              .orElse(null);
      if (next == null || next.isAfter(target)) {
        break;
      }
      if (next.isAfter(clock.instant())) {
        clock.set(next);
      }
      for (Instance instance : instances.values()) {
        instance.scheduler().runDue();
      }
      quiesce();
    }
    clock.set(target);
  }

  /**
   * Moves the clock forward to {@code instant} as {@link #advance} does; not at all if it is past.
   */
  public void advanceTo(Instant instant) {
    Duration duration = Duration.between(clock.instant(), instant);
    advance(duration.isNegative() ? Duration.ZERO : duration);
  }

  /**
   * Waits until every handler thread of the run is idle: each delivery has answered or is parked,
   * each provider call has returned or is parked, and nothing new happened for a few milliseconds.
   * Bounded by the run's patience.
   */
  public void quiesce() {
    threads.quiesce();
  }

  /**
   * When the lease {@code instance} last obtained on the order lapses, if each claim and heartbeat
   * asked for a full {@link #LEASE}: the time its last claim answered Claimed or extend answered
   * Written was sent, plus the lease.
   *
   * @throws ScenarioFailure if the instance never held the order
   */
  public Instant leaseObtained(Instance instance, String order) {
    String sessionId = sessionId(order);
    Instant last = null;
    for (Call call : history.calls()) {
      if (call.caller().equals(instance.name())
          && call.sessionId().equals(sessionId)
          && (call.answer() == Answer.CLAIMED
              || (call.operation() == Operation.EXTEND && call.answer() == Answer.WRITTEN))) {
        last = call.at();
      }
    }
    if (last == null) {
      throw failure("instance " + instance.name() + " never claimed order '" + order + "'");
    }
    return last.plus(LEASE);
  }

  synchronized void reported(OrphanReport report) {
    reports.add(report);
  }

  /**
   * What the handler did in this run, in a line: the answers of every delivery in the order they
   * were made ({@code -} for none), and the purchases per order.
   */
  public synchronized String summary() {
    return RunReport.summary(threads.deliveries(), orders, provider, reports.size());
  }

  /** The orphan reports the handler instances made for the order, in order. */
  public synchronized List<OrphanReport> reports(String order) {
    String sessionId = sessionId(order);
    return reports.stream()
        .filter(report -> report.sessionId().equals(sessionId))
        .collect(Collectors.toList());
  }

  /** The order as the store holds it now, read past every instance's faults. */
  public Optional<OrderRecord> record(String order) {
    return store.get(sessionId(order));
  }

  OrderStore store() {
    return store;
  }

  Replay replay() {
    return replay;
  }

  RunReport report() {
    return report;
  }

  /** A failure of this run's scenario, with the timeline and the replay so far. */
  ScenarioFailure failure(String message) {
    return report.failure(message);
  }

  /** Releases every parked provider call and delivery, and closes the handlers. */
  @Override
  public void close() {
    for (Instance instance : instances.values()) {
      instance.store().crash(); // nothing a thread still running does reaches the store now
      instance.scheduler().kill();
    }
    provider.releaseAll();
    threads.interruptUnanswered();
    for (Instance instance : instances.values()) {
      if (instance.handler() instanceof AutoCloseable closeable) {
        try {
          closeable.close();
        } catch (Exception e) {
          timeline.add(instance.name(), "handler close failed: " + e);
        }
      }
    }
  }

  @Override
  public String toString() {
    return "ScenarioRun[" + report.id() + ", " + instances.keySet() + "]";
  }

  /**
   * Thrown into a thread of a crashed instance, or of a run that ended, so nothing it does
   * afterwards has an effect. Never seen by a scenario.
   */
  static final class RunEnded extends Error {
    private static final long serialVersionUID = 1L;

    RunEnded() {
      super("the instance crashed or the scenario run ended", null, false, false);
    }
  }
}
