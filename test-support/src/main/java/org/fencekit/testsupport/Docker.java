package org.fencekit.testsupport;

import java.util.Optional;
import java.util.function.Supplier;
import org.testcontainers.DockerClientFactory;

/** Whether Testcontainers can reach a Docker daemon, and starting a container only then. */
final class Docker {

  private Docker() {}

  /** A container's address from {@code start}, or empty (nothing started) without Docker. */
  static Supplier<Optional<String>> ifAvailable(Supplier<String> start) {
    return () -> available() ? Optional.of(start.get()) : Optional.empty();
  }

  /** True if a container could be started; false (never an exception) without Docker. */
  static boolean available() {
    try {
      return DockerClientFactory.instance().isDockerAvailable();
    } catch (RuntimeException | LinkageError e) {
      return false;
    }
  }
}
