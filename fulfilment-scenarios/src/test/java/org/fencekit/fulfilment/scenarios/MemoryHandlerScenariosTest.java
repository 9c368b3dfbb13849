package org.fencekit.fulfilment.scenarios;

/**
 * fencekit's own handler through every scenario, on the memory store, held to its exact statuses
 * (the other stores' runs judge by effect, as a user's do).
 */
class MemoryHandlerScenariosTest extends FulfilmentScenarios {

  @Override
  protected boolean exactStatuses() {
    return true;
  }

  @Override
  protected HandlerUnderTest newHandler(HandlerContext context) {
    return HandlerUnderTest.of(context.fulfilmentHandler().build());
  }
}
