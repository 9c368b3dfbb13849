package org.fencekit.fulfilment.scenarios.http;

/** A black-box scenario saw the endpoint break its rule: the message says what, in one sentence. */
final class Breach extends RuntimeException {

  private static final long serialVersionUID = 1L;

  Breach(String problem) {
    super(problem, null, false, false);
  }
}
