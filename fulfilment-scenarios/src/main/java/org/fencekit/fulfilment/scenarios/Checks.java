package org.fencekit.fulfilment.scenarios;

import static org.fencekit.fulfilment.scenarios.Problem.never;
import static org.fencekit.fulfilment.scenarios.Problem.waitFor;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.fencekit.history.Answer;
import org.fencekit.history.Call;
import org.fencekit.history.Operation;
import org.fencekit.store.ClaimId;
import org.fencekit.store.Item;
import org.fencekit.store.OrderRecord;
import org.fencekit.store.OrderStatus;

/**
 * The checks on what the handler did in a {@link ScenarioRun}, reached by {@link
 * ScenarioRun#expect()}: {@code run.expect().purchases("order", 1)}. Orders are named as the
 * scenario named them ({@link ScenarioRun#order}); purchases are numbered from 1 in the order the
 * provider made them; the checks on store calls read the run's {@link ScenarioRun#history()}, each
 * instance's calls in the order they returned.
 *
 * <p>Each check first waits for the handlers to go idle, then passes as soon as what it checks
 * holds; it waits, bounded by the run's patience, while what it found could still change (an answer
 * not yet given, a purchase not yet made), and fails at once when it cannot (a second purchase). A
 * failed check throws a {@link ScenarioFailure} that says what is wrong, with the run's timeline
 * and its replay; each check is a line of the replay.
 */
public final class Checks {

  private final ScenarioRun run;
  private final RunThreads threads;
  private final FakeProvider provider;
  private final RunReport report;
  private volatile boolean exactStatuses;

  Checks(ScenarioRun run, RunThreads threads) {
    this.run = run;
    this.threads = threads;
    this.provider = run.provider();
    this.report = run.report();
  }

  void exactStatuses(boolean exact) {
    this.exactStatuses = exact;
  }

  /**
   * The delivery answered one of {@code statuses}: judged by the effect on Stripe (any 2xx stops
   * it, anything else makes it retry) unless the run holds answers to {@link
   * ScenarioRun#exactStatuses exact statuses}.
   */
  public void answer(Delivery delivery, int... statuses) {
    line("answer(" + delivery + ", " + join(statuses) + ")");
    eventually(
        () -> {
          if (!delivery.answered()) {
            return waitFor(threads.noAnswer(delivery));
          }
          if (IntStream.of(statuses).anyMatch(s -> judged(s) == judged(delivery.status()))) {
            return null;
          }
          boolean acknowledged = judged(delivery.status()) == 200 && !exactStatuses;
          if (acknowledged && delivery.settledOnceWhenAnswered()) {
            return null; // Stripe stops, and rightly: the order was settled with its one purchase
          }
          return never(
              String.format(
                  "delivery %s of %s to %s was answered %s%s, expected %s%s",
                  delivery,
                  delivery.event().eventId(),
                  delivery.instance().name(),
                  delivery.status(),
                  delivery.thrown() == null ? "" : " (the handler threw " + delivery.thrown() + ")",
                  expected(statuses),
                  acknowledged
                      ? ": its order was not settled exactly once when it answered (a 2xx is"
                          + " right only for an order provisioned with its one purchase)"
                      : ""));
        });
  }

  /**
   * The deliveries of one {@link ScenarioRun#deliverTogether} answered exactly {@code statuses} so
   * far (in any order, judged as {@link #answer} judges); the rest are still working.
   */
  public void answered(List<Delivery> group, int... statuses) {
    line("answered(" + groupVar(group) + ", " + join(statuses) + ")");
    eventually(
        () -> {
          List<Integer> wanted = IntStream.of(statuses).map(this::judged).sorted().boxed().toList();
          List<Integer> statusesAnswered =
              group.stream().filter(Delivery::answered).map(Delivery::status).toList();
          List<Integer> answered = statusesAnswered.stream().map(this::judged).sorted().toList();
          if (answered.equals(wanted)) {
            return null;
          }
          List<String> wantedNames = wanted.stream().map(status -> expected(status)).toList();
          String text =
              String.format(
                  "the deliveries %s have answered %s (%s still working), expected %s",
                  groupVar(group),
                  statusesAnswered,
                  group.size() - answered.size(),
                  String.join(" and ", wantedNames));
          return answered.size() < wanted.size() ? waitFor(text) : never(text);
        });
  }

  /**
   * The provider made {@code purchases} purchases for the order, every call for it asked for the
   * order's product, quantity and amount, and none was handed another order's purchase.
   */
  public void purchases(String order, int purchases) {
    line("purchases(" + Replay.quote(order) + ", " + purchases + ")");
    eventually(
        () -> {
          String sessionId = run.sessionId(order);
          String wrong = provider.wrongGoods(sessionId);
          if (wrong != null) {
            return never(wrong);
          }
          String other = provider.keySharedWith(sessionId);
          if (other != null) {
            return never(
                String.format(
                    "a provider call for order '%s' sent the idempotency key of order '%s' and was"
                        + " handed that order's purchase: a key must name one order (its session),"
                        + " never a cart, a customer or a product",
                    order, report.label(other)));
          }
          int made = provider.purchases(sessionId);
          if (made == purchases) {
            return null;
          }
          String text =
              String.format(
                  "the provider bought %s item(s) for order '%s' (%s, %s call(s)), expected %s%s",
                  made,
                  order,
                  provider.items(sessionId),
                  provider.calls(sessionId),
                  purchases,
                  made > purchases && purchases > 0
                      ? ": the customer's order was bought more than once"
                      : made > purchases ? ": bought before the scenario allowed it" : "");
          return made < purchases ? waitFor(text) : never(text);
        });
  }

  /** The store holds the order with {@code status}. */
  public void status(String order, OrderStatus status) {
    line("status(" + Replay.quote(order) + ", OrderStatus." + status + ")");
    eventually(
        () -> {
          Optional<OrderRecord> record = run.record(order);
          if (record.isEmpty()) {
            return waitFor("order '" + order + "' is not in the store, expected " + status);
          }
          return record.get().status() == status
              ? null
              : waitFor(
                  String.format(
                      "order '%s' is %s in the store, expected %s",
                      order, report.describe(record.get()), status));
        });
  }

  /** The store holds the order with the {@code n}-th item the provider bought for it. */
  public void itemIsPurchase(String order, int n) {
    line("itemIsPurchase(" + Replay.quote(order) + ", " + n + ")");
    eventually(
        () -> {
          List<Item> items = provider.items(run.sessionId(order));
          if (items.size() < n) {
            return waitFor(
                "the provider bought " + items.size() + " item(s) for '" + order + "', not " + n);
          }
          Item expected = items.get(n - 1);
          Optional<OrderRecord> record = run.record(order);
          if (record.isPresent() && expected.equals(record.get().item())) {
            return null;
          }
          return waitFor(
              String.format(
                  "order '%s' shows %s, expected purchase %s (%s): the customer's item is missing"
                      + " or was replaced",
                  order,
                  record
                      .map(r -> "item " + r.item() + "; it is " + report.describe(r))
                      .orElse("nothing"),
                  n,
                  expected.providerOrderId()));
        });
  }

  /** The store kept exactly the listed purchases (by number) as orphans of the order. */
  public void orphans(String order, int... purchaseNumbers) {
    line("orphans(" + Replay.quote(order) + leadingComma(purchaseNumbers) + ")");
    eventually(
        () -> {
          List<String> kept =
              run.store().orphans(run.sessionId(order)).stream()
                  .map(orphan -> orphan.item().providerOrderId())
                  .toList();
          return listed(
              kept,
              purchaseIds(order, purchaseNumbers),
              "the store kept orphans " + kept + " for order '" + order + "'",
              "");
        });
  }

  /**
   * The handler reported exactly the listed purchases (by number) as orphans of the order to its
   * orphan listener, each once.
   */
  public void reported(String order, int... purchaseNumbers) {
    line("reported(" + Replay.quote(order) + leadingComma(purchaseNumbers) + ")");
    eventually(
        () -> {
          List<String> reported =
              run.reports(order).stream().map(r -> r.orphan().providerOrderId()).toList();
          return listed(
              reported,
              purchaseIds(order, purchaseNumbers),
              String.format(
                  "the handler reported orphans %s for order '%s' to its orphan listener",
                  reported, order),
              reported.isEmpty()
                  ? ": a superseded complete is a purchase nobody was shown (real money);"
                      + " report it to the listener the context gives"
                  : "");
        });
  }

  /** The store granted {@code claims} claims on the order: 1 means nobody became a second owner. */
  public void claimsGranted(String order, long claims) {
    line("claimsGranted(" + Replay.quote(order) + ", " + claims + ")");
    eventually(
        () -> {
          long granted = run.record(order).map(OrderRecord::fence).orElse(0L);
          if (granted == claims) {
            return null;
          }
          String text =
              String.format(
                  "the store granted %s claim(s) on order '%s', expected %s%s",
                  granted,
                  order,
                  claims,
                  granted > claims
                      ? ": another attempt became owner while one was still working"
                      : "");
          return granted < claims ? waitFor(text) : never(text);
        });
  }

  /** The order was never claimed: nothing is stored for it. */
  public void notClaimed(String order) {
    line("notClaimed(" + Replay.quote(order) + ")");
    eventually(
        () ->
            run.record(order)
                .map(
                    r ->
                        never(
                            String.format(
                                "order '%s' was claimed (%s), expected untouched",
                                order, report.describe(r))))
                .orElse(null));
  }

  /** The order's last error mentions {@code text}. */
  public void lastErrorContains(String order, String text) {
    line("lastErrorContains(" + Replay.quote(order) + ", " + Replay.quote(text) + ")");
    eventually(
        () -> {
          String error = run.record(order).map(OrderRecord::lastError).orElse(null);
          return error != null && error.contains(text)
              ? null
              : waitFor(
                  String.format(
                      "order '%s' has last error %s, expected one that mentions '%s'",
                      order, error == null ? "none" : "'" + error + "'", text));
        });
  }

  /**
   * No instance sent a fail with a claim id after a complete with that claim id whose outcome was
   * unknown: that complete may have landed, and a fail can only undo nothing or wrongly reopen the
   * order.
   */
  public void noFailAfterUnknownComplete() {
    line("noFailAfterUnknownComplete()");
    eventually(
        () -> {
          for (Instance instance : run.instances()) {
            List<ClaimId> unknown = new ArrayList<>();
            for (Call call : storeCalls(instance)) {
              if (call.operation() == Operation.COMPLETE && call.outcomeUnknown()) {
                unknown.add(call.claimId());
              } else if (call.operation() == Operation.FAIL && unknown.contains(call.claimId())) {
                return never(
                    String.format(
                        "instance %s sent fail(%s, %s) after a complete with that token whose"
                            + " outcome was unknown: retry the complete (a replay answers"
                            + " Written), never fail it",
                        instance.name(),
                        report.label(call.sessionId()),
                        RunReport.shortForm(call.claimId())));
              }
            }
          }
          return null;
        });
  }

  /** No instance sent a fail for the order, and the order shows no error. */
  public void neverFailed(String order) {
    line("neverFailed(" + Replay.quote(order) + ")");
    eventually(
        () -> {
          String sessionId = run.sessionId(order);
          for (Instance instance : run.instances()) {
            for (Call call : storeCalls(instance)) {
              if (call.sessionId().equals(sessionId) && call.operation() == Operation.FAIL) {
                return never(
                    String.format(
                        "instance %s sent fail for order '%s' with %s, expected the order never"
                            + " to be failed",
                        instance.name(), order, RunReport.shortForm(call.claimId())));
              }
            }
          }
          String error = run.record(order).map(OrderRecord::lastError).orElse(null);
          return error == null
              ? null
              : never(
                  "order '" + order + "' was failed at some point (last error '" + error + "')");
        });
  }

  /**
   * The {@code n}-th provider call (counting from 1) was cut off: told its attempt no longer owns
   * the order ({@link org.fencekit.fulfilment.Ownership} reads false) or its thread was
   * interrupted.
   */
  public void callCutOff(int n) {
    line("callCutOff(" + n + ")");
    FakeProvider.ProviderCall call = provider.awaitCall(n);
    eventually(
        () ->
            !call.purchase().ownership().owned() || call.interrupted()
                ? null
                : waitFor(
                    String.format(
                        "provider call #%s of %s for order '%s' was not cut off: its ownership"
                            + " still reads true and its thread was not interrupted (clock at"
                            + " +%s); a heartbeat answered Superseded, and a deadline reached,"
                            + " must tell the call at once",
                        call.number(),
                        call.instance().name(),
                        report.label(call.sessionId()),
                        run.timeline().now())));
  }

  /**
   * No instance extended a lease with a claim id after an extend with that claim id was answered
   * {@code Superseded}: the heartbeat must stop once it learns the order was taken over.
   */
  public void noExtendAfterSuperseded() {
    line("noExtendAfterSuperseded()");
    eventually(
        () -> {
          for (Instance instance : run.instances()) {
            List<ClaimId> lost = new ArrayList<>();
            for (Call call : storeCalls(instance)) {
              if (call.operation() != Operation.EXTEND) {
                continue;
              }
              if (lost.contains(call.claimId())) {
                return never(
                    String.format(
                        "instance %s sent extend(%s, %s) at +%s after an extend with that token"
                            + " was answered Superseded: stop the heartbeat once the order is"
                            + " taken over",
                        instance.name(),
                        report.label(call.sessionId()),
                        RunReport.shortForm(call.claimId()),
                        run.timeline().sinceStart(call.at())));
              }
              if (call.answer() == Answer.SUPERSEDED) {
                lost.add(call.claimId());
              }
            }
          }
          return null;
        });
  }

  private void line(String check) {
    run.replay().line("run.expect()." + check + ";");
  }

  /**
   * Passes once {@code check} finds nothing wrong; waits (bounded by the patience) while what it
   * found could still change, and fails at once when it cannot.
   */
  private void eventually(Supplier<Problem> check) {
    long deadline = System.nanoTime() + run.patience().toNanos();
    while (true) {
      run.quiesce();
      Problem problem = check.get();
      if (problem == null) {
        return;
      }
      if (problem.hopeless() || System.nanoTime() > deadline) {
        throw run.failure(problem.text());
      }
      RunThreads.pause();
    }
  }

  private static String join(int[] values) {
    return IntStream.of(values).mapToObj(String::valueOf).collect(Collectors.joining(", "));
  }

  private static String leadingComma(int[] values) {
    return values.length == 0 ? "" : ", " + join(values);
  }

  /** The replay's name for the deliveries of one {@link ScenarioRun#deliverTogether}. */
  private static String groupVar(List<Delivery> group) {
    String first = group.get(0).toString();
    return first.substring(0, first.indexOf('.'));
  }

  /** A status as this run judges it: itself if exact, else 200 for any 2xx and 500 for the rest. */
  private int judged(int status) {
    return exactStatuses ? status : status >= 200 && status < 300 ? 200 : 500;
  }

  private String expected(int... statuses) {
    List<String> names =
        IntStream.of(statuses)
            .mapToObj(
                status ->
                    exactStatuses
                        ? String.valueOf(status)
                        : judged(status) == 200
                            ? "a 2xx (Stripe stops)"
                            : "a non-2xx (Stripe retries)")
            .distinct()
            .toList();
    return (names.size() == 1 ? "" : "one of ") + String.join(", ", names);
  }

  private List<String> purchaseIds(String order, int[] purchaseNumbers) {
    List<Item> items = provider.items(run.sessionId(order));
    return IntStream.of(purchaseNumbers)
        .mapToObj(n -> items.size() >= n ? items.get(n - 1).providerOrderId() : "purchase " + n)
        .toList();
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

  /** The store calls {@code instance} made, in the order they returned. */
  private List<Call> storeCalls(Instance instance) {
    return run.history().calls().stream()
        .filter(call -> call.caller().equals(instance.name()))
        .toList();
  }
}
