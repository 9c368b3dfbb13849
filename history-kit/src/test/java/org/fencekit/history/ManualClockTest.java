package org.fencekit.history;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The hand-moved clock stores, tests and benchmarks are built on. */
class ManualClockTest {

  private static final Instant START = Instant.parse("2030-01-02T03:04:05Z");

  @Test
  @DisplayName("it reads what it was set to, moves forward by hand, and steps back only by set")
  void movesByHand() {
    ManualClock clock = new ManualClock(START);
    assertEquals(START, clock.instant());
    assertEquals(START.plusMillis(1500), clock.advance(Duration.ofMillis(1500)));
    assertEquals(START.plusMillis(1500), clock.instant());
    clock.set(START.minusSeconds(60));
    assertEquals(START.minusSeconds(60), clock.instant());
    IllegalArgumentException back =
        assertThrows(IllegalArgumentException.class, () -> clock.advance(Duration.ofMillis(-1)));
    assertTrue(back.getMessage().startsWith("duration"), back.getMessage());
    assertThrows(NullPointerException.class, () -> clock.set(null));
    assertThrows(NullPointerException.class, () -> new ManualClock(null));
  }

  @Test
  @DisplayName("it is always UTC, whatever zone is asked for")
  void utc() {
    ManualClock clock = new ManualClock(START);
    assertEquals(ZoneOffset.UTC, clock.getZone());
    assertSame(clock, clock.withZone(ZoneId.of("Europe/Paris")));
    assertEquals("ManualClock[" + START + "]", clock.toString());
  }
}
