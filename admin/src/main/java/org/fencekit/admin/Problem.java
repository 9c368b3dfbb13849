package org.fencekit.admin;

/** A failure the command reports with its own exit code and a message that says what to do. */
final class Problem extends RuntimeException {

  private static final long serialVersionUID = 1L;

  private final int exitCode;

  Problem(int exitCode, String message) {
    super(message);
    this.exitCode = exitCode;
  }

  /** One of {@link ExitCode}'s codes. */
  int exitCode() {
    return exitCode;
  }
}
