package org.fencekit.fulfilment.scenarios.http;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * One run of {@link BlackBoxRunner#run}: its exit code and what it printed.
 *
 * @param exit the exit code
 * @param out the standard output
 * @param err the standard error
 */
record Captured(int exit, String out, String err) {

  /** Runs the runner on {@code args}. */
  static Captured run(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int exit =
        BlackBoxRunner.run(
            List.of(args),
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    return new Captured(
        exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  @Override
  public String toString() {
    return "exit " + exit + "\n--- out:\n" + out + "\n--- err:\n" + err;
  }
}
