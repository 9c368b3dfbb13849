package org.fencekit.admin;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.fencekit.testsupport.ChildJvm;

/**
 * {@code java -jar admin/target/fencekit-admin.jar ...} as an operator runs it: a process of its
 * own, its environment cleared of fencekit's variables but for those given.
 */
final class AdminProcess {

  /** What a run printed and how it exited. */
  record Run(int exitCode, String out, String err) {
    @Override
    public String toString() {
      return "exit " + exitCode + "\n--- stdout\n" + out + "--- stderr\n" + err;
    }
  }

  private AdminProcess() {}

  /** The jar the build made (failsafe passes its path). */
  static Path jar() {
    String path = System.getProperty("fencekit.admin.jar", "target/fencekit-admin.jar");
    Path jar = Path.of(path);
    assertTrue(Files.isRegularFile(jar), "no " + jar + ": run `./mvnw verify -pl admin -am`");
    return jar;
  }

  static Run run(Path directory, Map<String, String> environment, String... args)
      throws IOException, InterruptedException {
    // A short-lived command: the test JVMs' client compiler and serial collector start it in about
    // two thirds of the CPU time (these ITs run a few hundred of them); the command runs the same.
    List<String> command = new ArrayList<>(ChildJvm.command());
    command.add("-jar");
    command.add(jar().toAbsolutePath().toString());
    command.addAll(List.of(args));
    File out = Files.createTempFile(directory, "out", ".txt").toFile();
    File err = Files.createTempFile(directory, "err", ".txt").toFile();
    ProcessBuilder builder =
        new ProcessBuilder(command)
            .directory(directory.toFile())
            .redirectOutput(out)
            .redirectError(err)
            .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
    builder.environment().keySet().removeIf(name -> name.startsWith("FENCEKIT_"));
    builder.environment().putAll(environment);
    Process process = builder.start();
    if (!process.waitFor(120, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new AssertionError(
          "fencekit-admin " + String.join(" ", args) + " did not exit in 120 s");
    }
    return new Run(
        process.exitValue(),
        Files.readString(out.toPath(), StandardCharsets.UTF_8),
        Files.readString(err.toPath(), StandardCharsets.UTF_8));
  }
}
