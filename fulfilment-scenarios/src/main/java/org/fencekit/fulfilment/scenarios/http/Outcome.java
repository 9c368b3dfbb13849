package org.fencekit.fulfilment.scenarios.http;

import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What one scenario came to.
 *
 * @param scenario the scenario
 * @param verdict held, failed or skipped
 * @param reason why it failed or was skipped, or what it saw if it held
 * @param timeline what happened, one step a line, or an empty list if it was skipped
 * @param orders each order's name and session id
 * @param steering each order's provider calls, as {@link HttpRun#steering()} tells them
 * @param replayFile the replay written for a failure, or {@code null}
 * @param millis how long it took
 */
record Outcome(
    HttpScenario scenario,
    Verdict verdict,
    String reason,
    List<String> timeline,
    Map<String, String> orders,
    Map<String, List<String>> steering,
    Path replayFile,
    long millis) {

  /** What a scenario came to. */
  enum Verdict {
    HELD,
    FAILED,
    SKIPPED;

    /** As the table prints it: a failure stands out in capitals. */
    String text() {
      return this == FAILED ? name() : name().toLowerCase(Locale.ROOT);
    }
  }

  /** A scenario the runner could not play. */
  static Outcome skipped(HttpScenario scenario, String reason) {
    return new Outcome(scenario, Verdict.SKIPPED, reason, List.of(), Map.of(), Map.of(), null, 0);
  }

  /** The same outcome with its replay file. */
  Outcome withReplay(Path file) {
    return new Outcome(scenario, verdict, reason, timeline, orders, steering, file, millis);
  }
}
