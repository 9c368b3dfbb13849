package org.fencekit.bench;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicReference;

/** A clock the replay moves by hand, so a lease runs out without waiting for it. */
final class ManualClock extends Clock {

  private final AtomicReference<Instant> now;

  ManualClock(Instant start) {
    this.now = new AtomicReference<>(start);
  }

  void advance(Duration duration) {
    now.updateAndGet(t -> t.plus(duration));
  }

  @Override
  public Instant instant() {
    return now.get();
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
