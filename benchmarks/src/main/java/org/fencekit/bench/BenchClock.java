package org.fencekit.bench;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The system clock, shifted forward by hand: the benchmarks run in real time, and a setup that
 * needs a lease to run out (a superseded token) moves this clock instead of waiting.
 */
final class BenchClock extends Clock {

  private final AtomicLong shiftMillis = new AtomicLong();

  /** Moves this clock forward by {@code duration} for good. */
  void shift(Duration duration) {
    shiftMillis.addAndGet(duration.toMillis());
  }

  @Override
  public Instant instant() {
    return Instant.ofEpochMilli(millis());
  }

  @Override
  public long millis() {
    return System.currentTimeMillis() + shiftMillis.get();
  }

  @Override
  public ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  @Override
  public Clock withZone(ZoneId zone) {
    return this;
  }
}
