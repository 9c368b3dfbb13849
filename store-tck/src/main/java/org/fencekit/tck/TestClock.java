package org.fencekit.tck;

import java.time.Instant;
import org.fencekit.history.ManualClock;

/**
 * The TCK's clock: a {@link ManualClock} that starts at {@link #START}. The tests move it by hand,
 * so lease expiry is tested without sleeping; a store under test and its peer share one.
 */
public final class TestClock extends ManualClock {

  /** Where every TCK clock starts: a fixed, recognisable instant. */
  public static final Instant START = Instant.parse("2026-09-14T12:00:00Z");

  /** A clock at {@link #START}. */
  public TestClock() {
    this(START);
  }

  /** A clock at {@code start}. */
  public TestClock(Instant start) {
    super(start);
  }
}
