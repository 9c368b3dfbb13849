package org.fencekit.fulfilment.scenarios;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import org.fencekit.store.memory.MemoryOrderStore;
import org.junit.jupiter.api.Test;

/** The runner the main job uses outside JUnit. */
class ScenarioRunnerTest {

  private static final Duration PATIENCE = Duration.ofSeconds(10);

  @Test
  void fencekitsHandlerHoldsEveryScenarioAndEachResultSaysWhatItDid() {
    List<ScenarioRunner.Result> results =
        ScenarioRunner.runAll(
            context -> HandlerUnderTest.of(context.fulfilmentHandler().build()),
            MemoryOrderStore::new,
            PATIENCE);
    assertEquals(Scenario.values().length, results.size());
    for (ScenarioRunner.Result result : results) {
      assertTrue(result.held(), result.scenario() + ": " + result.problem());
      assertNull(result.failure());
      assertTrue(result.summary().startsWith("answers "), result.summary());
    }
    ScenarioRunner.Result concurrent = results.get(0);
    assertEquals(Scenario.S01_CONCURRENT_DELIVERIES, concurrent.scenario());
    assertTrue(concurrent.summary().contains("1 bought for order"), concurrent.summary());
    String stale = results.get(2).summary();
    assertTrue(stale.contains("2 bought for order, 1 orphan(s) reported"), stale);
  }

  @Test
  void eachScenarioIsFoundByItsIdAndAnUnknownIdIsNamed() {
    for (Scenario scenario : Scenario.values()) {
      assertEquals(scenario, Scenario.byId(scenario.id()));
    }
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> Scenario.byId("s99"));
    assertEquals("no scenario has id 's99'", e.getMessage());
  }

  @Test
  void aWrongHandlerIsReportedWithItsProblemAndTheWholeFailure() {
    ScenarioRunner.Result result =
        ScenarioRunner.run(
            Scenario.S05_CRASH_AFTER_PURCHASE,
            WrongHandler.NO_IDEMPOTENCY_KEY,
            MemoryOrderStore::new,
            PATIENCE);
    assertFalse(result.held());
    assertTrue(result.problem().contains("bought more than once"), result.problem());
    assertTrue(result.summary().contains("2 bought for order"), result.summary());
    assertTrue(result.failure().getMessage().contains("replay_s05"), result.problem());
  }

  @Test
  void aStoreThatCannotBeBuiltIsAFailedResultNotACrash() {
    ScenarioRunner.Result result =
        ScenarioRunner.run(
            Scenario.S08_DUPLICATE_AFTER_SUCCESS,
            context -> HandlerUnderTest.of(context.fulfilmentHandler().build()),
            clock -> {
              throw new IllegalStateException("no server");
            },
            PATIENCE);
    assertFalse(result.held());
    assertTrue(result.problem().contains("no server"), result.problem());
  }
}
