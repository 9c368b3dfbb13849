package org.fencekit.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.fencekit.bench.Replay.Outcome;
import org.fencekit.fulfilment.CheckoutEvent;
import org.fencekit.fulfilment.EventType;
import org.fencekit.fulfilment.PaymentStatus;
import org.fencekit.fulfilment.scenarios.HandlerUnderTest;
import org.fencekit.fulfilment.scenarios.Scenario;
import org.fencekit.store.memory.MemoryOrderStore;
import org.junit.jupiter.api.Test;

/** The main job's second replay: the handler through the scenario kit, one row per scenario. */
class HandlerReplayTest {

  @Test
  void fencekitsHandlerHoldsEveryScenarioAndSaysWhatItDid() throws Exception {
    List<Outcome> outcomes = HandlerReplay.REPLAY.scenarios().run(MemoryOrderStore::new);
    assertEquals(Scenario.values().length, outcomes.size());
    for (Outcome outcome : outcomes) {
      assertTrue(outcome.held(), outcome.scenario() + ": " + outcome.detail());
      assertTrue(outcome.detail().startsWith("answers "), outcome.detail());
    }
    assertEquals(Scenario.S01_CONCURRENT_DELIVERIES.id(), outcomes.get(0).scenario());
  }

  @Test
  void aHandlerThatBuysBeforePaymentIsShownAsNotHeldWithWhatItBought() throws Exception {
    List<Outcome> outcomes =
        HandlerReplay.of(
                context -> {
                  HandlerUnderTest right = HandlerUnderTest.of(context.fulfilmentHandler().build());
                  return event ->
                      right.handle(
                          event.type() == EventType.COMPLETED
                              ? CheckoutEvent.completed(
                                  event.eventId(), PaymentStatus.PAID, event.snapshot())
                              : event);
                })
            .scenarios()
            .run(MemoryOrderStore::new);
    Outcome unpaid = outcomes.get(Scenario.S06_UNPAID_THEN_PAID.ordinal());
    assertFalse(unpaid.held(), unpaid.detail());
    assertTrue(unpaid.detail().contains("bought before the scenario allowed it"), unpaid.detail());
  }
}
