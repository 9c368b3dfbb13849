package org.fencekit.fulfilment.scenarios;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.fencekit.fulfilment.CheckoutEvent;
import org.fencekit.fulfilment.OrphanReport;
import org.fencekit.fulfilment.PaymentStatus;
import org.fencekit.history.ManualClock;
import org.fencekit.store.ClaimId;
import org.fencekit.store.Item;
import org.fencekit.store.OrderRecord;
import org.fencekit.store.OrderSnapshot;
import org.fencekit.store.OrderStatus;
import org.fencekit.store.OrderStore;
import org.fencekit.store.Orphan;

/**
 * One scenario's world: a test clock, one store, the fake provider, and handler instances (the
 * processes of the user's service) made by the user's {@link HandlerFactory}. Its methods are the
 * steps of a scenario and the checks on what the handler did; each is recorded in the {@link
 * Timeline} and as a line of a replay, and a failed check throws a {@link ScenarioFailure} with
 * both.
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

  private final String id;
  private final HandlerFactory factory;
  private final OrderStore store;
  private final ManualClock clock;
  private final Duration patience;
  private final Instant start;
  private final Timeline timeline;
  private final Replay replay = new Replay();
  private final FakeProvider provider;
  private final String prefix;
  private final Map<String, Instance> instances = new LinkedHashMap<>();
  private final Map<String, OrderSnapshot> orders = new LinkedHashMap<>();
  private final Map<String, String> labels = new HashMap<>();
  private final List<Delivery> deliveries = new ArrayList<>();
  private final List<Thread> providerThreads = new ArrayList<>();
  private final List<OrphanReport> reports = new ArrayList<>();
  private final Map<CheckoutEvent, String> events = new IdentityHashMap<>();
  private volatile boolean exactStatuses;
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
    this.id = id;
    this.factory = factory;
    this.store = store;
    this.clock = clock;
    this.patience = patience;
    this.start = clock.instant();
    this.timeline = new Timeline(clock);
    this.provider = new FakeProvider(this);
    this.prefix = "cs_test_" + ClaimId.newNonce().substring(0, 8) + RUNS.incrementAndGet() + "_";
  }

  /**
   * Whether answers are checked against fencekit's exact statuses (200, 409, 500, 503) instead of
   * by their effect on Stripe, the default: where a scenario's rule is "Stripe stops" any 2xx
   * passes, where it is "Stripe retries" any other status does (and an exception, which a server
   * answers 500).
   */
  public ScenarioRun exactStatuses(boolean exact) {
    this.exactStatuses = exact;
    return this;
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
            provider.forInstance(instance),
            clock,
            instance.scheduler(),
            providerExecutor(name),
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

  /** The order called {@code name}: a Checkout session of its own, unique to this run. */
  public OrderSnapshot order(String name) {
    return orders.computeIfAbsent(
        name,
        n -> {
          String sessionId = prefix + n;
          labels.put(sessionId, n);
          return new OrderSnapshot(sessionId, "esim-eu-5gb", 1, "buyer@example.com", 1500, "eur");
        });
  }

  /** The session id of the order called {@code name}. */
  public String sessionId(String name) {
    return order(name).sessionId();
  }

  /** A new {@code checkout.session.completed} event, paid, for the order. */
  public CheckoutEvent paid(String order) {
    return event(
        "paid", order, CheckoutEvent.completed(nextEventId(), PaymentStatus.PAID, order(order)));
  }

  /** A new {@code checkout.session.completed} event, not yet paid (a delayed method). */
  public CheckoutEvent unpaid(String order) {
    return event(
        "unpaid",
        order,
        CheckoutEvent.completed(nextEventId(), PaymentStatus.UNPAID, order(order)));
  }

  /**
   * A new {@code checkout.session.completed} event with nothing to pay ({@code
   * no_payment_required}: a free order, a 100% coupon), for the order.
   */
  public CheckoutEvent free(String order) {
    return event(
        "free",
        order,
        CheckoutEvent.completed(nextEventId(), PaymentStatus.NO_PAYMENT_REQUIRED, order(order)));
  }

  /** A new {@code checkout.session.async_payment_succeeded} event for the order. */
  public CheckoutEvent asyncSucceeded(String order) {
    return event(
        "asyncSucceeded", order, CheckoutEvent.asyncPaymentSucceeded(nextEventId(), order(order)));
  }

  /** A new {@code checkout.session.async_payment_failed} event for the order. */
  public CheckoutEvent asyncFailed(String order) {
    return event(
        "asyncFailed", order, CheckoutEvent.asyncPaymentFailed(nextEventId(), order(order)));
  }

  private String nextEventId() {
    return "evt_" + prefix.substring("cs_test_".length()) + (++eventCount);
  }

  private CheckoutEvent event(String kind, String order, CheckoutEvent event) {
    String var = "e" + eventCount;
    events.put(event, var);
    replay.line("CheckoutEvent " + var + " = run." + kind + "(" + Replay.quote(order) + ");");
    return event;
  }

  /**
   * Delivers {@code event} to every instance at once (they start together at a barrier) and returns
   * the deliveries, in the order of {@code to}.
   */
  public List<Delivery> deliverTogether(CheckoutEvent event, Instance... to) {
    String var = "together" + (++groupCount);
    StringBuilder args = new StringBuilder(eventVar(event));
    for (Instance instance : to) {
      args.append(", ").append(instance.var());
    }
    replay.line("List<Delivery> " + var + " = run.deliverTogether(" + args + ");");
    CyclicBarrier barrier = new CyclicBarrier(to.length);
    List<Delivery> started = new ArrayList<>();
    for (int i = 0; i < to.length; i++) {
      Delivery delivery = register(new Delivery(var + ".get(" + i + ")", to[i], event));
      started.add(delivery);
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

  Delivery newDelivery(Instance instance, CheckoutEvent event, String how) {
    String var = "d" + (++deliveryCount);
    replay.line(
        "Delivery " + var + " = " + instance.var() + "." + how + "(" + eventVar(event) + ");");
    return register(new Delivery(var, instance, event));
  }

  private synchronized Delivery register(Delivery delivery) {
    deliveries.add(delivery);
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

  void awaitQuietly(Delivery delivery) {
    long deadline = System.nanoTime() + patience.toNanos();
    while (!delivery.answered()) {
      if (System.nanoTime() > deadline) {
        throw failure(
            "delivery "
                + delivery
                + " to "
                + delivery.instance().name()
                + " got no answer within "
                + Timeline.format(patience)
                + " of real time (does the handler wait for a provider call to be released, or"
                + " for the clock to move?)");
      }
      pause();
    }
    quiesce();
  }

  private static void pause() {
    try {
      Thread.sleep(2); // waiting for other threads to make progress, not for a lease
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for the handler", e);
    }
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
      Instant next = null;
      for (Instance instance : instances.values()) {
        Instant due = instance.scheduler().nextDue();
        if (due != null && (next == null || due.isBefore(next))) {
          next = due;
        }
      }
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
    long deadline = System.nanoTime() + patience.toNanos();
    int quietRounds = 0;
    int lastSize = -1;
    while (quietRounds < 10) {
      if (System.nanoTime() > deadline) {
        throw failure(
            "the handler did not go idle within "
                + Timeline.format(patience)
                + " of real time; busy threads: "
                + busyThreads());
      }
      int size = timeline.size();
      if (busyThreads().isEmpty() && size == lastSize) {
        quietRounds++;
      } else {
        quietRounds = 0;
      }
      lastSize = size;
      pause();
    }
  }

  private synchronized List<String> busyThreads() {
    List<String> busy = new ArrayList<>();
    for (Delivery delivery : deliveries) {
      Thread thread = delivery.thread();
      if (thread != null && !delivery.answered() && (!delivery.begun() || !parked(thread))) {
        busy.add(thread.getName() + " " + thread.getState());
      }
    }
    for (FakeProvider.ProviderCall call : provider.calls()) {
      if (call.waking()) {
        busy.add(call + " released, not yet resumed");
      }
    }
    for (Thread thread : providerThreads) {
      if (!parked(thread)) {
        busy.add(thread.getName() + " " + thread.getState());
      }
    }
    return busy;
  }

  private static boolean parked(Thread thread) {
    Thread.State state = thread.getState();
    return state == Thread.State.TERMINATED
        || state == Thread.State.WAITING
        || state == Thread.State.TIMED_WAITING;
  }

  private Executor providerExecutor(String instance) {
    AtomicInteger count = new AtomicInteger();
    return task -> {
      Thread thread =
          new Thread(
              () -> {
                try {
                  task.run();
                } catch (RunEnded e) {
                  // the instance crashed or the run ended under this call
                }
              },
              "scenario-provider-" + instance + "-" + count.incrementAndGet());
      thread.setDaemon(true);
      synchronized (this) {
        providerThreads.add(thread);
      }
      thread.start();
    };
  }

  synchronized void reported(OrphanReport report) {
    reports.add(report);
  }

  /**
   * What the handler did in this run, in a line: the answers of every delivery in the order they
   * were made ({@code -} for none), and the purchases per order.
   */
  public synchronized String summary() {
    StringBuilder answers = new StringBuilder();
    for (Delivery delivery : deliveries) {
      answers.append(answers.length() == 0 ? "" : " ");
      answers.append(delivery.answered() ? String.valueOf(delivery.status()) : "-");
    }
    StringBuilder bought = new StringBuilder();
    for (Map.Entry<String, OrderSnapshot> order : orders.entrySet()) {
      bought.append(bought.length() == 0 ? "" : ", ");
      bought
          .append(provider.purchases(order.getValue().sessionId()))
          .append(" bought for ")
          .append(order.getKey());
    }
    if (!reports.isEmpty()) {
      bought.append(", ").append(reports.size()).append(" orphan(s) reported");
    }
    return "answers " + answers + "; " + bought;
  }

  /** The orphan reports the handler instances made for the order, in order. */
  public synchronized List<OrphanReport> reports(String order) {
    String sessionId = sessionId(order);
    List<OrphanReport> found = new ArrayList<>();
    for (OrphanReport report : reports) {
      if (report.sessionId().equals(sessionId)) {
        found.add(report);
      }
    }
    return found;
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

  /** The order's name in this run for a session id, or the session id itself. */
  String label(String sessionId) {
    return labels.getOrDefault(sessionId, sessionId);
  }

  /** The time since the run started, as {@code 2m30s}. */
  String sinceStart(Instant instant) {
    return Timeline.format(Duration.between(start, instant));
  }

  // ---------------------------------------------------------------------------------- checks

  /** What a check found wrong, and whether waiting could still put it right. */
  private record Problem(String text, boolean hopeless) {}

  private static Problem waitFor(String text) {
    return new Problem(text, false);
  }

  private static Problem never(String text) {
    return new Problem(text, true);
  }

  /**
   * Passes once {@code check} finds nothing wrong; waits (bounded by the patience) while what it
   * found could still change, and fails at once when it cannot.
   */
  private void eventually(Supplier<Problem> check) {
    long deadline = System.nanoTime() + patience.toNanos();
    while (true) {
      quiesce();
      Problem problem = check.get();
      if (problem == null) {
        return;
      }
      if (problem.hopeless() || System.nanoTime() > deadline) {
        throw failure(problem.text());
      }
      pause();
    }
  }

  /** Checks the delivery has answered one of {@code statuses}. */
  public void expectAnswer(Delivery delivery, int... statuses) {
    replay.line("run.expectAnswer(" + delivery + ", " + join(statuses) + ");");
    eventually(
        () -> {
          if (!delivery.answered()) {
            return waitFor(
                "delivery "
                    + delivery
                    + " to "
                    + delivery.instance().name()
                    + " got no answer within "
                    + Timeline.format(patience)
                    + " of real time (does the handler wait for a provider call to be released, or"
                    + " for the clock to move?)");
          }
          for (int allowed : statuses) {
            if (judged(allowed) == judged(delivery.status())) {
              return null;
            }
          }
          return never(
              "delivery "
                  + delivery
                  + " of "
                  + delivery.event().eventId()
                  + " to "
                  + delivery.instance().name()
                  + " was answered "
                  + delivery.status()
                  + (delivery.thrown() == null
                      ? ""
                      : " (the handler threw " + delivery.thrown() + ")")
                  + ", expected "
                  + expected(statuses));
        });
  }

  /** A status as this run judges it: itself if exact, else 200 for any 2xx and 500 for the rest. */
  private int judged(int status) {
    return exactStatuses ? status : status >= 200 && status < 300 ? 200 : 500;
  }

  private String expected(int... statuses) {
    List<String> names = new ArrayList<>();
    for (int status : statuses) {
      String name =
          exactStatuses
              ? String.valueOf(status)
              : judged(status) == 200 ? "a 2xx (Stripe stops)" : "a non-2xx (Stripe retries)";
      if (!names.contains(name)) {
        names.add(name);
      }
    }
    return (names.size() == 1 ? "" : "one of ") + String.join(", ", names);
  }

  /**
   * Checks the answers so far: exactly {@code statuses} (in any order) among the deliveries that
   * have answered; the rest must still be working.
   */
  public void expectAnswered(List<Delivery> group, int... statuses) {
    replay.line("run.expectAnswered(" + groupVar(group) + ", " + join(statuses) + ");");
    List<Integer> wanted = new ArrayList<>();
    for (int status : statuses) {
      wanted.add(judged(status));
    }
    wanted.sort(null);
    eventually(
        () -> {
          List<Integer> answered = new ArrayList<>();
          List<Integer> statusesAnswered = new ArrayList<>();
          for (Delivery delivery : group) {
            if (delivery.answered()) {
              answered.add(judged(delivery.status()));
              statusesAnswered.add(delivery.status());
            }
          }
          answered.sort(null);
          if (answered.equals(wanted)) {
            return null;
          }
          List<String> wantedNames = new ArrayList<>();
          for (int status : wanted) {
            wantedNames.add(expected(status));
          }
          String text =
              "the deliveries "
                  + groupVar(group)
                  + " have answered "
                  + statusesAnswered
                  + " ("
                  + (group.size() - answered.size())
                  + " still working), expected "
                  + String.join(" and ", wantedNames);
          return answered.size() < wanted.size() ? waitFor(text) : never(text);
        });
  }

  private static String groupVar(List<Delivery> group) {
    String first = group.get(0).toString();
    return first.substring(0, first.indexOf('.'));
  }

  /** Checks how many purchases the provider made for the order. */
  public void expectPurchases(String order, int purchases) {
    replay.line("run.expectPurchases(" + Replay.quote(order) + ", " + purchases + ");");
    String sessionId = sessionId(order);
    eventually(
        () -> {
          String other = provider.keySharedWith(sessionId);
          if (other != null) {
            return never(
                "a provider call for order '"
                    + order
                    + "' sent the idempotency key of order '"
                    + label(other)
                    + "' and was handed that order's purchase: a key must name one order (its"
                    + " session), never a cart, a customer or a product");
          }
          int made = provider.purchases(sessionId);
          if (made == purchases) {
            return null;
          }
          String text =
              "the provider bought "
                  + made
                  + " item(s) for order '"
                  + order
                  + "' ("
                  + provider.items(sessionId)
                  + ", "
                  + provider.calls(sessionId)
                  + " call(s)), expected "
                  + purchases
                  + (made > purchases && purchases > 0
                      ? ": the customer's order was bought more than once"
                      : made > purchases ? ": bought before the scenario allowed it" : "");
          return made < purchases ? waitFor(text) : never(text);
        });
  }

  /** Checks the order's status in the store. */
  public void expectStatus(String order, OrderStatus status) {
    replay.line("run.expectStatus(" + Replay.quote(order) + ", OrderStatus." + status + ");");
    eventually(
        () -> {
          Optional<OrderRecord> record = record(order);
          if (record.isEmpty()) {
            return waitFor("order '" + order + "' is not in the store, expected " + status);
          }
          return record.get().status() == status
              ? null
              : waitFor(
                  "order '"
                      + order
                      + "' is "
                      + describe(record.get())
                      + " in the store, expected "
                      + status);
        });
  }

  /**
   * Checks the order is provisioned with the {@code n}-th item the provider bought for it (counting
   * from 1).
   */
  public void expectItemIsPurchase(String order, int n) {
    replay.line("run.expectItemIsPurchase(" + Replay.quote(order) + ", " + n + ");");
    eventually(
        () -> {
          List<Item> items = provider.items(sessionId(order));
          if (items.size() < n) {
            return waitFor(
                "the provider bought " + items.size() + " item(s) for '" + order + "', not " + n);
          }
          Item expected = items.get(n - 1);
          Optional<OrderRecord> record = record(order);
          if (record.isPresent() && expected.equals(record.get().item())) {
            return null;
          }
          return waitFor(
              "order '"
                  + order
                  + "' shows "
                  + record.map(r -> "item " + r.item() + "; it is " + describe(r)).orElse("nothing")
                  + ", expected purchase "
                  + n
                  + " ("
                  + expected.providerOrderId()
                  + "): the customer's item is missing or was replaced");
        });
  }

  /** Checks the store kept exactly the listed purchases (by number) as orphans of the order. */
  public void expectOrphans(String order, int... purchaseNumbers) {
    replay.line("run.expectOrphans(" + Replay.quote(order) + join(purchaseNumbers, true) + ");");
    eventually(
        () -> {
          List<String> kept = new ArrayList<>();
          for (Orphan orphan : store.orphans(sessionId(order))) {
            kept.add(orphan.item().providerOrderId());
          }
          return listed(
              kept,
              purchaseIds(order, purchaseNumbers),
              "the store kept orphans " + kept + " for order '" + order + "'",
              "");
        });
  }

  /**
   * Checks the handler reported exactly the listed purchases (by number) as orphans of the order,
   * each once.
   */
  public void expectReported(String order, int... purchaseNumbers) {
    replay.line("run.expectReported(" + Replay.quote(order) + join(purchaseNumbers, true) + ");");
    eventually(
        () -> {
          List<String> reported = new ArrayList<>();
          for (OrphanReport report : reports(order)) {
            reported.add(report.orphan().providerOrderId());
          }
          return listed(
              reported,
              purchaseIds(order, purchaseNumbers),
              "the handler reported orphans "
                  + reported
                  + " for order '"
                  + order
                  + "' to its orphan listener",
              reported.isEmpty()
                  ? ": a superseded complete is a purchase nobody was shown (real money);"
                      + " report it to the listener the context gives"
                  : "");
        });
  }

  private List<String> purchaseIds(String order, int[] purchaseNumbers) {
    List<Item> items = provider.items(sessionId(order));
    List<String> ids = new ArrayList<>();
    for (int n : purchaseNumbers) {
      ids.add(items.size() >= n ? items.get(n - 1).providerOrderId() : "purchase " + n);
    }
    return ids;
  }

  // A list that is a proper beginning of the expected one may still grow; any other is wrong.
  private static Problem listed(
      List<String> found, List<String> expected, String what, String hint) {
    if (found.equals(expected)) {
      return null;
    }
    String text = what + ", expected " + expected + hint;
    boolean mayGrow =
        found.size() < expected.size() && expected.subList(0, found.size()).equals(found);
    return mayGrow ? waitFor(text) : never(text);
  }

  /**
   * Checks how many claims the store granted on the order: 1 means nobody became a second owner.
   */
  public void expectClaimsGranted(String order, long claims) {
    replay.line("run.expectClaimsGranted(" + Replay.quote(order) + ", " + claims + ");");
    eventually(
        () -> {
          Optional<OrderRecord> record = record(order);
          long granted = record.map(OrderRecord::fence).orElse(0L);
          if (granted == claims) {
            return null;
          }
          String text =
              "the store granted "
                  + granted
                  + " claim(s) on order '"
                  + order
                  + "', expected "
                  + claims
                  + (granted > claims
                      ? ": another attempt became owner while one was still working"
                      : "");
          return granted < claims ? waitFor(text) : never(text);
        });
  }

  /** Checks the order was never claimed (nothing stored for it). */
  public void expectNotClaimed(String order) {
    replay.line("run.expectNotClaimed(" + Replay.quote(order) + ");");
    eventually(
        () ->
            record(order)
                .map(
                    r ->
                        never(
                            "order '"
                                + order
                                + "' was claimed ("
                                + describe(r)
                                + "), expected untouched"))
                .orElse(null));
  }

  /** Checks the order's last error mentions {@code text}. */
  public void expectLastErrorContains(String order, String text) {
    replay.line(
        "run.expectLastErrorContains(" + Replay.quote(order) + ", " + Replay.quote(text) + ");");
    eventually(
        () -> {
          String error = record(order).map(OrderRecord::lastError).orElse(null);
          return error != null && error.contains(text)
              ? null
              : waitFor(
                  "order '"
                      + order
                      + "' has last error "
                      + (error == null ? "none" : "'" + error + "'")
                      + ", expected one that mentions '"
                      + text
                      + "'");
        });
  }

  /**
   * Checks no instance sent a fail with a token after a complete with that token whose outcome was
   * unknown: that complete may have landed, and a fail can only undo nothing or wrongly reopen the
   * order.
   */
  public void expectNoFailAfterUnknownComplete() {
    replay.line("run.expectNoFailAfterUnknownComplete();");
    eventually(
        () -> {
          for (Instance instance : instances.values()) {
            List<ClaimId> unknown = new ArrayList<>();
            for (InstanceStore.Call call : instance.store().calls()) {
              if (call.operation().equals("complete") && call.outcomeUnknown()) {
                unknown.add(call.claimId());
              } else if (call.operation().equals("fail") && unknown.contains(call.claimId())) {
                return never(
                    "instance "
                        + instance.name()
                        + " sent fail("
                        + label(call.sessionId())
                        + ", "
                        + InstanceStore.shortForm(call.claimId())
                        + ") after a complete with that token whose outcome was unknown: retry the"
                        + " complete (a replay answers Written), never fail it");
              }
            }
          }
          return null;
        });
  }

  /** Checks no instance sent a fail for the order and the order shows no error. */
  public void expectNeverFailed(String order) {
    replay.line("run.expectNeverFailed(" + Replay.quote(order) + ");");
    String sessionId = sessionId(order);
    eventually(
        () -> {
          for (Instance instance : instances.values()) {
            for (InstanceStore.Call call : instance.store().calls()) {
              if (call.sessionId().equals(sessionId) && call.operation().equals("fail")) {
                return never(
                    "instance "
                        + instance.name()
                        + " sent fail for order '"
                        + order
                        + "' with "
                        + InstanceStore.shortForm(call.claimId())
                        + ", expected the order never to be failed");
              }
            }
          }
          String error = record(order).map(OrderRecord::lastError).orElse(null);
          return error == null
              ? null
              : never(
                  "order '" + order + "' was failed at some point (last error '" + error + "')");
        });
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
    for (InstanceStore.Call call : instance.store().calls()) {
      if (call.sessionId().equals(sessionId) && call.leased()) {
        last = call.at();
      }
    }
    if (last == null) {
      throw failure("instance " + instance.name() + " never claimed order '" + order + "'");
    }
    return last.plus(LEASE);
  }

  /**
   * Checks the {@code n}-th provider call (counting from 1) was cut off: told its attempt no longer
   * owns the order ({@link org.fencekit.fulfilment.Ownership} reads false) or its thread was
   * interrupted.
   */
  public void expectCallCutOff(int n) {
    replay.line("run.expectCallCutOff(" + n + ");");
    FakeProvider.ProviderCall call = provider.awaitCall(n);
    eventually(
        () ->
            !call.purchase().ownership().owned() || call.interrupted()
                ? null
                : waitFor(
                    "provider call #"
                        + n
                        + " of "
                        + call.instance().name()
                        + " for order '"
                        + label(call.sessionId())
                        + "' was not cut off: its ownership still reads true and its thread was"
                        + " not interrupted (clock at +"
                        + sinceStart(clock.instant())
                        + "); a heartbeat answered Superseded, and a deadline reached, must tell"
                        + " the call at once"));
  }

  /**
   * Checks no instance extended a lease with a token after an extend with that token was answered
   * {@code Superseded}: the heartbeat must stop once it learns the order was taken over.
   */
  public void expectNoExtendAfterSuperseded() {
    replay.line("run.expectNoExtendAfterSuperseded();");
    eventually(
        () -> {
          for (Instance instance : instances.values()) {
            List<ClaimId> lost = new ArrayList<>();
            for (InstanceStore.Call call : instance.store().calls()) {
              if (!call.operation().equals("extend")) {
                continue;
              }
              if (lost.contains(call.claimId())) {
                return never(
                    "instance "
                        + instance.name()
                        + " sent extend("
                        + label(call.sessionId())
                        + ", "
                        + InstanceStore.shortForm(call.claimId())
                        + ") at +"
                        + sinceStart(call.at())
                        + " after an extend with that token was answered Superseded: stop the"
                        + " heartbeat once the order is taken over");
              }
              if ("Superseded".equals(call.answer())) {
                lost.add(call.claimId());
              }
            }
          }
          return null;
        });
  }

  private String describe(OrderRecord record) {
    return record.status()
        + (record.item() == null ? "" : " with " + record.item().providerOrderId())
        + ", fence "
        + record.fence()
        + (record.claimId() == null
            ? ", no claim"
            : ", claim "
                + record.claimId()
                + " leased until +"
                + sinceStart(record.leaseExpiresAt()))
        + (record.lastError() == null ? "" : ", last error '" + record.lastError() + "'")
        + " (clock at +"
        + sinceStart(clock.instant())
        + ")";
  }

  private static String join(int[] values) {
    StringBuilder out = new StringBuilder();
    for (int value : values) {
      out.append(out.length() == 0 ? "" : ", ").append(value);
    }
    return out.toString();
  }

  private static String join(int[] values, boolean leadingComma) {
    return values.length == 0 ? "" : ", " + join(values);
  }

  /** A failure of this run's scenario, with the timeline and the replay so far. */
  ScenarioFailure failure(String message) {
    return new ScenarioFailure(id, message, timeline.toString(), replay.test(id));
  }

  /** Releases every parked provider call and delivery, and closes the handlers. */
  @Override
  public void close() {
    for (Instance instance : instances.values()) {
      instance.store().crash(); // nothing a thread still running does reaches the store now
      instance.scheduler().kill();
    }
    provider.releaseAll();
    synchronized (this) {
      for (Delivery delivery : deliveries) {
        Thread thread = delivery.thread();
        if (thread != null && !delivery.answered()) {
          thread.interrupt();
        }
      }
    }
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
    return "ScenarioRun[" + id + ", " + Arrays.toString(instances.keySet().toArray()) + "]";
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
