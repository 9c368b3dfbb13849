package org.fencekit.tck;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A {@link Clock} the tests move by hand, so lease expiry is tested without sleeping. Safe for many
 * threads: every reading and every advance is atomic. A store under test and its peer share one
 * {@code TestClock}.
 */
public final class TestClock extends Clock {

  /** Where every TCK clock starts: a fixed, recognisable instant. */
  public static final Instant START = Instant.parse("2026-09-14T12:00:00Z");

  private final AtomicReference<Instant> now;

  /** A clock at {@link #START}. */
  public TestClock() {
    this(START);
  }

  /** A clock at {@code start}. */
  public TestClock(Instant start) {
    this.now = new AtomicReference<>(start);
  }

  /** Moves the clock forward by {@code duration} and returns the new time. */
  public Instant advance(Duration duration) {
    if (duration.isNegative()) {
      throw new IllegalArgumentException("a TestClock only moves forward, got " + duration);
    }
    return now.updateAndGet(t -> t.plus(duration));
  }

  /** Sets the clock to {@code instant}, which may be earlier (a clock stepped back by NTP). */
  public void set(Instant instant) {
    now.set(instant);
  }

  @Override
  public Instant instant() {
    return now.get();
  }

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
    return "TestClock[" + now.get() + "]";
  }
}
