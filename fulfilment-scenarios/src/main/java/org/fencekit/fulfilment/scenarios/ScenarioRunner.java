package org.fencekit.fulfilment.scenarios;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.fencekit.history.ManualClock;
import org.fencekit.store.OrderStore;

/**
 * Plays the scenarios outside JUnit (from a command line or a report of your own): each on a new
 * store and clock, returning what the handler did and whether the scenario held.
 */
public final class ScenarioRunner {

  /** Makes the store a scenario runs on, whose leases run on {@code clock}. */
  @FunctionalInterface
  public interface StoreFactory {
    /**
     * A new store over {@code clock}; the runner closes it.
     *
     * @throws Exception if it cannot be built
     */
    OrderStore create(Clock clock) throws Exception;
  }

  /**
   * What one scenario did.
   *
   * @param scenario the scenario
   * @param held whether every check passed
   * @param summary the answers and purchases, in a line
   * @param problem what went wrong, or {@code null} if it held
   * @param failure the whole failure (timeline and replay), or {@code null} if it held
   */
  public record Result(
      Scenario scenario, boolean held, String summary, String problem, Throwable failure) {}

  private ScenarioRunner() {}

  /**
   * Plays every scenario against handlers from {@code handlers} on stores from {@code stores}.
   *
   * @param patience how long, in real time, a scenario waits for the handler's threads
   */
  public static List<Result> runAll(
      HandlerFactory handlers, StoreFactory stores, Duration patience) {
    Objects.requireNonNull(handlers, "handlers");
    Objects.requireNonNull(stores, "stores");
    return Stream.of(Scenario.values())
        .map(scenario -> run(scenario, handlers, stores, patience))
        .collect(Collectors.toList());
  }

  /** Plays one scenario. */
  public static Result run(
      Scenario scenario, HandlerFactory handlers, StoreFactory stores, Duration patience) {
    ManualClock clock = new ManualClock(ScenarioRun.START);
    OrderStore store;
    try {
      store = stores.create(clock);
    } catch (Exception e) {
      return new Result(scenario, false, "", "the store could not be built: " + e, e);
    }
    try (store;
        ScenarioRun run = new ScenarioRun(scenario.id(), handlers, store, clock, patience)) {
      try {
        scenario.play(run);
        return new Result(scenario, true, run.summary(), null, null);
      } catch (ScenarioFailure failure) {
        return new Result(scenario, false, run.summary(), failure.problem(), failure);
      } catch (RuntimeException e) {
        return new Result(scenario, false, run.summary(), e.toString(), e);
      }
    }
  }
}
