package org.fencekit.fulfilment.scenarios;

import java.util.List;
import java.util.function.Supplier;
import org.fencekit.store.OrderStatus;

/**
 * The checks on what the handler did in a {@link ScenarioRun}, reached by {@link
 * ScenarioRun#expect()}: {@code run.expect().purchases("order", 1)}. Orders are named as the
 * scenario named them ({@link ScenarioRun#order}); purchases are numbered from 1 in the order the
 * provider made them.
 *
 * <p>Each check first waits for the handlers to go idle, then passes as soon as what it checks
 * holds; it waits, bounded by the run's patience, while what it found could still change (an answer
 * not yet given, a purchase not yet made), and fails at once when it cannot (a second purchase). A
 * failed check throws a {@link ScenarioFailure} that says what is wrong, with the run's timeline
 * and its replay; each check is a line of the replay.
 */
public final class Checks {

  private final ScenarioRun run;
  private final AnswerJudge answers;
  private final OrderJudge orders;
  private final CallJudge calls;

  Checks(ScenarioRun run, RunThreads threads) {
    this.run = run;
    this.answers = new AnswerJudge(threads);
    this.orders = new OrderJudge(run);
    this.calls = new CallJudge(run);
  }

  void exactStatuses(boolean exact) {
    answers.exactStatuses(exact);
  }

  /**
   * The delivery answered one of {@code statuses}: judged by the effect on Stripe (any 2xx stops
   * it, anything else makes it retry) unless the run holds answers to {@link
   * ScenarioRun#exactStatuses exact statuses}.
   */
  public void answer(Delivery delivery, int... statuses) {
    line("answer(" + delivery + ", " + join(statuses) + ")");
    eventually(() -> answers.answer(delivery, statuses));
  }

  /**
   * The deliveries of one {@link ScenarioRun#deliverTogether} answered exactly {@code statuses} so
   * far (in any order, judged as {@link #answer} judges); the rest are still working.
   */
  public void answered(List<Delivery> group, int... statuses) {
    line("answered(" + AnswerJudge.groupVar(group) + ", " + join(statuses) + ")");
    eventually(() -> answers.answered(group, statuses));
  }

  /** The provider made {@code purchases} purchases for the order. */
  public void purchases(String order, int purchases) {
    line("purchases(" + Replay.quote(order) + ", " + purchases + ")");
    eventually(() -> orders.purchases(order, purchases));
  }

  /** The store holds the order with {@code status}. */
  public void status(String order, OrderStatus status) {
    line("status(" + Replay.quote(order) + ", OrderStatus." + status + ")");
    eventually(() -> orders.status(order, status));
  }

  /** The store holds the order with the {@code n}-th item the provider bought for it. */
  public void itemIsPurchase(String order, int n) {
    line("itemIsPurchase(" + Replay.quote(order) + ", " + n + ")");
    eventually(() -> orders.itemIsPurchase(order, n));
  }

  /** The store kept exactly the listed purchases (by number) as orphans of the order. */
  public void orphans(String order, int... purchaseNumbers) {
    line("orphans(" + Replay.quote(order) + leadingComma(purchaseNumbers) + ")");
    eventually(() -> orders.orphans(order, purchaseNumbers));
  }

  /**
   * The handler reported exactly the listed purchases (by number) as orphans of the order to its
   * orphan listener, each once.
   */
  public void reported(String order, int... purchaseNumbers) {
    line("reported(" + Replay.quote(order) + leadingComma(purchaseNumbers) + ")");
    eventually(() -> orders.reported(order, purchaseNumbers));
  }

  /** The store granted {@code claims} claims on the order: 1 means nobody became a second owner. */
  public void claimsGranted(String order, long claims) {
    line("claimsGranted(" + Replay.quote(order) + ", " + claims + ")");
    eventually(() -> orders.claimsGranted(order, claims));
  }

  /** The order was never claimed: nothing is stored for it. */
  public void notClaimed(String order) {
    line("notClaimed(" + Replay.quote(order) + ")");
    eventually(() -> orders.notClaimed(order));
  }

  /** The order's last error mentions {@code text}. */
  public void lastErrorContains(String order, String text) {
    line("lastErrorContains(" + Replay.quote(order) + ", " + Replay.quote(text) + ")");
    eventually(() -> orders.lastErrorContains(order, text));
  }

  /**
   * No instance sent a fail with a claim id after a complete with that claim id whose outcome was
   * unknown: that complete may have landed, and a fail can only undo nothing or wrongly reopen the
   * order.
   */
  public void noFailAfterUnknownComplete() {
    line("noFailAfterUnknownComplete()");
    eventually(calls::noFailAfterUnknownComplete);
  }

  /** No instance sent a fail for the order, and the order shows no error. */
  public void neverFailed(String order) {
    line("neverFailed(" + Replay.quote(order) + ")");
    eventually(() -> calls.neverFailed(order));
  }

  /**
   * The {@code n}-th provider call (counting from 1) was cut off: told its attempt no longer owns
   * the order ({@link org.fencekit.fulfilment.Ownership} reads false) or its thread was
   * interrupted.
   */
  public void callCutOff(int n) {
    line("callCutOff(" + n + ")");
    FakeProvider.ProviderCall call = run.provider().awaitCall(n);
    eventually(() -> calls.cutOff(call));
  }

  /**
   * No instance extended a lease with a claim id after an extend with that claim id was answered
   * {@code Superseded}: the heartbeat must stop once it learns the order was taken over.
   */
  public void noExtendAfterSuperseded() {
    line("noExtendAfterSuperseded()");
    eventually(calls::noExtendAfterSuperseded);
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
    StringBuilder out = new StringBuilder();
    for (int value : values) {
      out.append(out.length() == 0 ? "" : ", ").append(value);
    }
    return out.toString();
  }

  private static String leadingComma(int[] values) {
    return values.length == 0 ? "" : ", " + join(values);
  }
}
