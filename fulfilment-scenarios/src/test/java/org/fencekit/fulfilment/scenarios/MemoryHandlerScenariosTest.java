package org.fencekit.fulfilment.scenarios;

/** fencekit's own handler through every scenario, on the memory store. */
class MemoryHandlerScenariosTest extends FulfilmentScenarios {

  @Override
  protected HandlerUnderTest newHandler(HandlerContext context) {
    return HandlerUnderTest.of(context.fulfilmentHandler().build());
  }
}
