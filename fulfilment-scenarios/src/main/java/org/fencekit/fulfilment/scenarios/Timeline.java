package org.fencekit.fulfilment.scenarios;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * What happened in one scenario run, step by step: every delivery and its answer, every store call
 * and its result, every provider call, every clock move and timer that ran, every orphan reported.
 * The black-box runner ({@code scenarios.http}) keeps one per scenario on the real clock. Safe for
 * many threads.
 */
public final class Timeline {

  private final Clock clock;
  private final Instant start;
  private final List<String> lines = new ArrayList<>();

  /**
   * A timeline whose steps are stamped with the time since now on {@code clock}: the in-JVM kit's
   * test clock, or the system clock for a black-box run over HTTP.
   */
  public Timeline(Clock clock) {
    this.clock = clock;
    this.start = clock.instant();
  }

  /** Adds a step by {@code actor} ("A", "B", "kit", "provider") at the clock's reading. */
  public synchronized void add(String actor, String what) {
    lines.add(String.format("%9s  %-8s %s", "+" + now(), actor, what));
  }

  /** The time since the run started, as {@code 2m30s}. */
  String sinceStart(Instant instant) {
    return format(Duration.between(start, instant));
  }

  /** The clock's reading since the run started, as {@code 2m30s}. */
  String now() {
    return sinceStart(clock.instant());
  }

  /** How many steps were recorded: a change means something is still happening. */
  public synchronized int size() {
    return lines.size();
  }

  @Override
  public synchronized String toString() {
    return String.join("\n", lines);
  }

  /** {@code 2m30s}, {@code 90ms}, {@code 0s}. */
  static String format(Duration duration) {
    StringBuilder out = new StringBuilder();
    if (duration.toHours() > 0) {
      out.append(duration.toHours()).append('h');
    }
    if (duration.toMinutesPart() > 0) {
      out.append(duration.toMinutesPart()).append('m');
    }
    if (duration.toSecondsPart() > 0) {
      out.append(duration.toSecondsPart()).append('s');
    }
    if (duration.toMillisPart() > 0) {
      out.append(duration.toMillisPart()).append("ms");
    }
    return out.length() == 0 ? "0s" : out.toString(); // zero, or under a millisecond
  }
}
