package org.fencekit.fulfilment.scenarios;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.fencekit.history.ManualClock;
import org.fencekit.store.memory.MemoryOrderStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The kit tests itself: each deliberately wrong handler must fail the scenario named for its
 * mistake, on every one of several runs, with a message that names the mistake's effect, the
 * timeline and a replay; each handler that differs from fencekit's only in allowed ways must hold
 * every scenario on every run. The cases run side by side: each is a run of its own.
 */
@Execution(ExecutionMode.CONCURRENT)
class ScenarioKitSelfTest {

  private static final int RUNS = 3;

  @ParameterizedTest(name = "{0} fails {1}")
  @EnumSource(WrongHandler.class)
  void eachWrongHandlerFailsItsScenarioEveryTime(WrongHandler wrong) {
    Scenario scenario = wrong.catchingScenario();
    for (int i = 1; i <= RUNS; i++) {
      ScenarioFailure failure =
          assertThrows(
              ScenarioFailure.class,
              () -> play(scenario, wrong, Duration.ofSeconds(3), false),
              wrong + " passed " + scenario.id());
      assertEquals(scenario.id(), failure.scenario());
      assertTrue(
          failure.problem().contains(wrong.effect()),
          () -> wrong + " failed " + scenario.id() + " for another reason: " + failure.problem());
      assertTrue(failure.timeline().contains("receives"), failure::getMessage);
      assertTrue(
          failure.replay().contains("void replay_" + scenario.id() + "()"), failure::getMessage);
    }
  }

  @ParameterizedTest(name = "{0} holds every scenario")
  @EnumSource(EquivalentHandler.class)
  void eachEquivalentHandlerHoldsEveryScenarioEveryTime(EquivalentHandler handler) {
    List<String> failed = new ArrayList<>();
    for (Scenario scenario : Scenario.values()) {
      for (int i = 1; i <= RUNS; i++) {
        try {
          play(scenario, handler, Duration.ofSeconds(10), false);
        } catch (ScenarioFailure e) {
          failed.add(scenario.id() + " (run " + i + "): " + e.problem());
        }
      }
    }
    if (!failed.isEmpty()) {
      fail(handler + " is right but failed:\n  " + String.join("\n  ", failed));
    }
  }

  @Test
  void everyScenarioIsATestOfTheKitsBaseClass() {
    for (Scenario scenario : Scenario.values()) {
      try {
        assertTrue(
            FulfilmentScenarios.class
                .getDeclaredMethod(scenario.id())
                .isAnnotationPresent(Test.class),
            scenario.id() + " is not a @Test");
      } catch (NoSuchMethodException e) {
        fail("FulfilmentScenarios has no test " + scenario.id() + "(): a user's handler skips it");
      }
    }
  }

  @Test
  void exactStatusesAreAnOptIn() {
    ScenarioFailure failure =
        assertThrows(
            ScenarioFailure.class,
            () ->
                play(
                    Scenario.S01_CONCURRENT_DELIVERIES,
                    EquivalentHandler.OTHER_STATUS_TABLE,
                    Duration.ofSeconds(3),
                    true));
    assertTrue(failure.problem().contains("answered [429]"), failure::getMessage);
  }

  private static void play(
      Scenario scenario, HandlerFactory handlers, Duration patience, boolean exact) {
    ManualClock clock = new ManualClock(ScenarioRun.START);
    try (MemoryOrderStore store = new MemoryOrderStore(clock);
        ScenarioRun run =
            new ScenarioRun(scenario.id(), handlers, store, clock, patience).exactStatuses(exact)) {
      scenario.play(run);
    }
  }
}
