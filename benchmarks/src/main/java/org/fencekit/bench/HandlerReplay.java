package org.fencekit.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.fencekit.bench.Replay.Outcome;
import org.fencekit.fulfilment.scenarios.HandlerFactory;
import org.fencekit.fulfilment.scenarios.HandlerUnderTest;
import org.fencekit.fulfilment.scenarios.ScenarioRunner;

/**
 * The scenario kit's failure sequences ({@link org.fencekit.fulfilment.scenarios.Scenario}) against
 * fencekit's own {@code FulfilmentHandler} on each store: concurrent deliveries, a lease overrun, a
 * stale completion, crashes before and after the purchase, unpaid then paid, a store failing during
 * complete, provider failures, a slow call kept by heartbeats, redeliveries. Each scenario runs on
 * a store of its own.
 */
final class HandlerReplay {

  /** How long a scenario waits, in real time, for the handler's threads. */
  private static final Duration PATIENCE = Duration.ofSeconds(20);

  /** The replay as the main job shows it: fencekit's own handler. */
  static final Replay REPLAY =
      of(context -> HandlerUnderTest.of(context.fulfilmentHandler().build()));

  /** The replay of the handlers {@code handlers} makes. */
  static Replay of(HandlerFactory handlers) {
    return new Replay(
        "the handler (FulfilmentHandler) through the scenario kit: crashes, overruns, outages,"
            + " redeliveries",
        "held: the handler did what the scenario requires: the purchases made (never two for"
            + " one order, but in s03, whose provider ignores idempotency keys and whose second"
            + " purchase is the reported orphan), the order's final record, the orphans kept and"
            + " reported, and every HTTP answer. LANDED: it did not; the line below says what"
            + " went wrong.",
        stores -> {
          List<Outcome> outcomes = new ArrayList<>();
          for (ScenarioRunner.Result result :
              ScenarioRunner.runAll(handlers, stores::open, PATIENCE)) {
            outcomes.add(
                new Outcome(
                    result.scenario().id(),
                    result.held(),
                    result.held()
                        ? result.summary()
                        : result.problem() + " (" + result.summary() + ")"));
          }
          return outcomes;
        });
  }

  private HandlerReplay() {}
}
