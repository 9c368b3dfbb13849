package org.fencekit.fulfilment.scenarios;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.time.Duration;
import org.fencekit.store.ManualClock;
import org.fencekit.store.memory.MemoryOrderStore;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The kit tests itself: each deliberately wrong handler must fail the scenario named for its
 * mistake, on every one of several runs, with a message that names the mistake's effect, the
 * timeline and a replay.
 */
class ScenarioKitSelfTest {

  private static final int RUNS = 3;

  @ParameterizedTest(name = "{0} fails {1}")
  @EnumSource(WrongHandler.class)
  void eachWrongHandlerFailsItsScenarioEveryTime(WrongHandler wrong) {
    Scenario scenario = wrong.catchingScenario();
    for (int i = 1; i <= RUNS; i++) {
      ManualClock clock = new ManualClock(ScenarioRun.START);
      try (MemoryOrderStore store = new MemoryOrderStore(clock);
          ScenarioRun run =
              new ScenarioRun(scenario.id(), wrong, store, clock, Duration.ofSeconds(3))) {
        scenario.play(run);
        fail(wrong + " passed " + scenario.id() + " on run " + i + " of " + RUNS);
      } catch (ScenarioFailure failure) {
        assertEquals(scenario.id(), failure.scenario());
        assertTrue(failure.timeline().contains("receives"), failure::getMessage);
        assertTrue(
            failure.replay().contains("void replay_" + scenario.id() + "()"), failure::getMessage);
      }
    }
  }
}
