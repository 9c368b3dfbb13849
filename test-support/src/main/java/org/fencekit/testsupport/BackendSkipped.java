package org.fencekit.testsupport;

import org.opentest4j.TestAbortedException;

/**
 * A test skipped because its server is missing: JUnit counts it as skipped (aborted), and {@link
 * SkipReport} lists it under its backend with the variable that enables it.
 */
final class BackendSkipped extends TestAbortedException {

  private static final long serialVersionUID = 1L;

  private final transient Backend backend;

  BackendSkipped(Backend backend, String message) {
    super(message);
    this.backend = backend;
  }

  /** The missing server: its name, its variable and how to enable it. */
  Backend backend() {
    return backend;
  }
}
