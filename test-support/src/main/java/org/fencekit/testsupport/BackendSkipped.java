package org.fencekit.testsupport;

import org.opentest4j.TestAbortedException;

/**
 * A test skipped because its server is missing: JUnit counts it as skipped (aborted), and {@link
 * SkipReport} lists it under its backend with the variable that enables it.
 */
final class BackendSkipped extends TestAbortedException {

  private static final long serialVersionUID = 1L;

  private final String backend;
  private final String variable;
  private final String howToEnable;

  BackendSkipped(String backend, String variable, String howToEnable, String message) {
    super(message);
    this.backend = backend;
    this.variable = variable;
    this.howToEnable = howToEnable;
  }

  /** What the missing server is, e.g. {@code PostgreSQL}. */
  String backend() {
    return backend;
  }

  /** The environment variable that names such a server. */
  String variable() {
    return variable;
  }

  /** How to make the server available, e.g. {@code set FENCEKIT_REDIS_URL=redis://...}. */
  String howToEnable() {
    return howToEnable;
  }
}
