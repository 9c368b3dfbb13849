package org.fencekit.fulfilment.scenarios;

/**
 * What a check found wrong with the run as it stands, and whether waiting could still put it right
 * (a delivery not yet answered, a purchase not yet made) or never can (a second purchase).
 *
 * @param text what is wrong, as the failure will say it
 * @param hopeless whether no amount of waiting can put it right
 */
record Problem(String text, boolean hopeless) {

  /** Wrong for now: the check waits, bounded by the run's patience, and looks again. */
  static Problem waitFor(String text) {
    return new Problem(text, false);
  }

  /** Wrong for good: the check fails at once. */
  static Problem never(String text) {
    return new Problem(text, true);
  }
}
