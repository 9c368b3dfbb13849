package org.fencekit.history;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicReference;
import org.fencekit.store.spi.Validate;

/**
 * A {@link Clock} moved by hand, so a lease runs out without waiting for it: for tests, replays and
 * benchmarks that build a store on it. Safe for many threads: every reading and every move is
 * atomic. The TCK's {@code org.fencekit.tck.TestClock} is this clock started at a fixed instant.
 */
public class ManualClock extends Clock {

  private final AtomicReference<Instant> now;

  /**
   * A clock at {@code start}.
   *
   * @throws NullPointerException if {@code start} is null
   */
  public ManualClock(Instant start) {
    this.now = new AtomicReference<>(Validate.notNull("start", start));
  }

  /**
   * Moves the clock forward by {@code duration} and returns the new time.
   *
   * @throws IllegalArgumentException if {@code duration} is negative: use {@link #set} to step back
   */
  public Instant advance(Duration duration) {
    if (Validate.notNull("duration", duration).isNegative()) {
      throw new IllegalArgumentException(
          "duration must not be negative, got " + duration + "; use set(instant) to step back");
    }
    return now.updateAndGet(t -> t.plus(duration));
  }

  /** Sets the clock to {@code instant}, which may be earlier (a clock stepped back by NTP). */
  public void set(Instant instant) {
    now.set(Validate.notNull("instant", instant));
  }

  @Override
  public Instant instant() {
    return now.get();
  }

  /** Always UTC: zones do not matter to a store. */
  @Override
  public ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  /** Zones do not matter to a store; the same clock is returned. */
  @Override
  public Clock withZone(ZoneId zone) {
    return this;
  }

  @Override
  public String toString() {
    return getClass().getSimpleName() + "[" + now.get() + "]";
  }
}
