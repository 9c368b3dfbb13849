package org.fencekit.fulfilment.scenarios.http;

/**
 * What one purchase call to the runner's provider does, as a scenario steers it. Calls for an order
 * take the steering its scenario queued, in the order they arrive; a call with none left succeeds.
 */
enum Steer {
  /** Buys (or, for a key bought before and keys honoured, hands back that item) and answers 200. */
  SUCCEED("buys, answers 200"),
  /** Answers 402: certainly nothing bought. */
  REFUSE("refuses with 402, nothing bought"),
  /** Buys, then answers 503: the caller cannot know it bought. */
  SERVER_ERROR_AFTER_BUYING("buys, then answers 503 (outcome unknown)"),
  /** Buys, then closes the connection without an answer: the caller cannot know it bought. */
  DROP_AFTER_BUYING("buys, then drops the connection (outcome unknown)"),
  /** Buys nothing and holds the call open until the scenario releases it with another steering. */
  HANG("hangs until released, nothing bought yet"),
  /** Buys at once, then holds the answer until the scenario releases it. */
  BUY_THEN_HANG("buys, then holds the answer until released");

  private final String description;

  Steer(String description) {
    this.description = description;
  }

  /** What the call does, in words. */
  String description() {
    return description;
  }
}
