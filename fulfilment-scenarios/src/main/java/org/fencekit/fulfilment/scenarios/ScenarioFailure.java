package org.fencekit.fulfilment.scenarios;

/**
 * A scenario found the handler doing something a payments system must not: the message says what,
 * then what the handler did step by step, then a JUnit test that replays the run, ready to paste
 * into your subclass of {@link FulfilmentScenarios}.
 */
public final class ScenarioFailure extends AssertionError {

  private static final long serialVersionUID = 1L;

  private final String scenario;
  private final String problem;
  private final String timeline;
  private final String replay;

  ScenarioFailure(String scenario, String problem, String timeline, String replay) {
    super(
        "scenario "
            + scenario
            + ": "
            + problem
            + "\n\nWhat the handler did (clock since the start, instance, step):\n"
            + timeline
            + "\n\nA test that replays it (paste into your subclass of FulfilmentScenarios):\n\n"
            + replay);
    this.scenario = scenario;
    this.problem = problem;
    this.timeline = timeline;
    this.replay = replay;
  }

  /** The scenario's id. */
  public String scenario() {
    return scenario;
  }

  /** What went wrong, in one sentence. */
  public String problem() {
    return problem;
  }

  /** What the handler did, one step a line. */
  public String timeline() {
    return timeline;
  }

  /** A JUnit test method that replays the run. */
  public String replay() {
    return replay;
  }
}
