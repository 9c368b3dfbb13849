package org.fencekit.testsupport;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestInstanceFactoryContext;
import org.junit.jupiter.api.extension.TestInstancePreConstructCallback;

/**
 * What a test class owns on a shared server (a schema, a key prefix), as an extension registered on
 * a static field: set up before the class that registered it (classes nested in it share it), each
 * test skipped (or failed) as {@link Backend#address()} says when there is no server, cleaned up
 * after that class. The skip comes before the test instance is made, so no framework that builds
 * the instance from what the class owns (Spring's context reading a schema's URL) runs first and
 * turns the skip into an error.
 */
abstract class PerClass
    implements BeforeAllCallback, TestInstancePreConstructCallback, AfterAllCallback {

  final Backend server;
  private String owner;

  PerClass(Backend server) {
    this.server = server;
  }

  /** Sets up what the class owns; false if there is nothing to own (no server). */
  abstract boolean setUp();

  /** Removes what the class owned. */
  abstract void cleanUp();

  /** Sets up, unless an enclosing class did. */
  @Override
  public final synchronized void beforeAll(ExtensionContext context) {
    if (owner == null && setUp()) {
      owner = context.getUniqueId();
    }
  }

  /** Skips (or fails) the test before its instance is made when there is no server. */
  @Override
  public final void preConstructTestInstance(
      TestInstanceFactoryContext factory, ExtensionContext context) {
    server.address();
  }

  /** Cleans up after the class that set up. */
  @Override
  public final synchronized void afterAll(ExtensionContext context) {
    if (context.getUniqueId().equals(owner)) {
      try {
        cleanUp();
      } finally {
        owner = null;
      }
    }
  }
}
