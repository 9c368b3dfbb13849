package org.fencekit.testsupport;

import org.testcontainers.DockerClientFactory;

/** Whether Testcontainers can reach a Docker daemon. */
final class Docker {

  private Docker() {}

  /** True if a container could be started; false (never an exception) without Docker. */
  static boolean available() {
    try {
      return DockerClientFactory.instance().isDockerAvailable();
    } catch (RuntimeException | LinkageError e) {
      return false;
    }
  }
}
