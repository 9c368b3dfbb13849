package org.fencekit.admin;

/** The exit codes of {@code fencekit-admin}, as its {@code --help} lists them. */
final class ExitCode {

  /** Done; a listing found nothing. */
  static final int OK = 0;

  /**
   * Found something to look at (a listing that is not empty, a schema that needs migrating), or not
   * found (no such order or orphan, an orphan reconciled before with another note).
   */
  static final int FOUND = 1;

  /** The store could not be used: it did not answer, refused to open, or lacks the queries. */
  static final int UNAVAILABLE = 2;

  /** The command line is wrong (EX_USAGE of sysexits.h). */
  static final int USAGE = 64;

  private ExitCode() {}
}
