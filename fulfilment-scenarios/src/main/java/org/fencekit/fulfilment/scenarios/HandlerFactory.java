package org.fencekit.fulfilment.scenarios;

/** Builds the handler under test for one instance of a scenario run. */
@FunctionalInterface
public interface HandlerFactory {

  /**
   * A new handler instance wired to {@code context}.
   *
   * @throws Exception if it cannot be built (the scenario then fails)
   */
  HandlerUnderTest create(HandlerContext context) throws Exception;
}
