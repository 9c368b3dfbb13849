package org.fencekit.store.spi;

import java.time.Clock;

/**
 * What every store's builder shares: the clock its leases run on, and the rule that a setter only
 * records a value while {@code build()} checks them all and names the bad property. A store's
 * builder extends this (the SQL stores through {@code org.fencekit.store.jdbc.JdbcStoreBuilder})
 * and adds only what is its own.
 *
 * @param <B> the store's builder, which every setter returns
 */
public abstract class StoreBuilder<B extends StoreBuilder<B>> {

  private Clock clock = Clock.systemUTC();

  /** For a store's builder. */
  protected StoreBuilder() {}

  /**
   * The clock all lease arithmetic uses, at millisecond precision; default the system clock (UTC).
   * Every process sharing the store should keep its clock in step (NTP): a lease is read against
   * the clock of the process that claims, unless the store takes {@code now} from its server (its
   * builder's {@code serverTime}, where it has one).
   *
   * @return this builder
   */
  public final B clock(Clock clock) {
    this.clock = clock;
    return self();
  }

  /**
   * The clock, for {@code build()}.
   *
   * @throws NullPointerException naming {@code clock} if it was set to {@code null}
   */
  protected final Clock checkedClock() {
    return Validate.notNull("clock", clock);
  }

  /** This builder, as the store's builder type. */
  @SuppressWarnings("unchecked") // B is the class extending this, as its declaration requires
  protected final B self() {
    return (B) this;
  }
}
