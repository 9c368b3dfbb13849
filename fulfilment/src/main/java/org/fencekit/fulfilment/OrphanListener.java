package org.fencekit.fulfilment;

/**
 * Told of every purchase the store kept as an orphan (a superseded attempt bought it). Wire it to
 * your alerting: unless {@link OrphanReport#samePurchase()}, it is money spent on goods nobody was
 * shown. The handler logs each report at ERROR whether or not a listener is set.
 */
@FunctionalInterface
public interface OrphanListener {

  /**
   * Called once per superseded complete, on the thread that learned of it. It must not block for
   * long; an exception it throws is logged and does not change the webhook's answer.
   */
  void orphaned(OrphanReport report);
}
