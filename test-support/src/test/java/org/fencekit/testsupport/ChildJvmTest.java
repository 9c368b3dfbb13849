package org.fencekit.testsupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class ChildJvmTest {

  /** The child: prints the {@code -XX} flags it was started with, on one line. */
  public static void main(String[] args) {
    System.out.println(String.join(" ", ChildJvm.flags()));
  }

  @Test
  void aChildRunsWithTheTestJvmsFlags() throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(ChildJvm.command());
    command.addAll(
        List.of(
            "-cp",
            System.getProperty("surefire.test.class.path", System.getProperty("java.class.path")),
            ChildJvmTest.class.getName()));
    Process child = new ProcessBuilder(command).redirectErrorStream(true).start();
    String printed = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(child.waitFor(60, TimeUnit.SECONDS), "the child did not exit: " + printed);
    assertEquals(0, child.exitValue(), printed);
    assertEquals(String.join(" ", ChildJvm.flags()), printed.strip());
    // the build's test JVMs run with flags (test.jvm.flags): from Maven there is something to pass
    if (System.getProperty("surefire.test.class.path") != null) {
      assertFalse(ChildJvm.flags().isEmpty(), "the test JVM has no -XX flag: " + command);
    }
  }
}
