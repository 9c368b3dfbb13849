package org.fencekit.fulfilment;

import java.time.Duration;

/**
 * What the handler reports as it works, for metrics. Every method does nothing by default; {@link
 * MicrometerMetrics} records them in a Micrometer registry. Methods are called on the threads doing
 * the work and must not block.
 */
public interface FulfilmentMetrics {

  /** Records nothing. */
  FulfilmentMetrics NONE = new FulfilmentMetrics() {};

  /**
   * A claim was answered.
   *
   * @param outcome {@code claimed}, {@code provisioned}, {@code in_flight} or {@code mismatch}
   */
  default void claim(String outcome) {}

  /**
   * A complete or fail was answered.
   *
   * @param operation {@code complete} or {@code fail}
   * @param outcome {@code written} or {@code superseded}
   */
  default void settle(String operation, String outcome) {}

  /**
   * A superseded complete's purchase was kept as an orphan.
   *
   * @param samePurchase whether it is the purchase the order shows (nothing to refund)
   */
  default void orphan(boolean samePurchase) {}

  /**
   * A store call failed.
   *
   * @param operation {@code claim}, {@code complete}, {@code fail} or {@code extend}
   * @param outcomeUnknown whether the write may have landed ({@code false} also for an order that
   *     is gone)
   */
  default void storeError(String operation, boolean outcomeUnknown) {}

  /**
   * A store call returned or failed.
   *
   * @param operation the call
   * @param took how long it took, in real time
   */
  default void storeCall(String operation, Duration took) {}

  /** A provider call started; {@link #providerCallEnded} follows. */
  default void providerCallStarted() {}

  /**
   * A provider call ended.
   *
   * @param outcome {@code bought}, {@code refused} (nothing bought) or {@code unknown}
   * @param took how long it took, in real time
   */
  default void providerCallEnded(String outcome, Duration took) {}

  /**
   * A delivery was answered.
   *
   * @param outcome what was done, with its HTTP status
   */
  default void delivery(FulfilmentOutcome outcome) {}
}
