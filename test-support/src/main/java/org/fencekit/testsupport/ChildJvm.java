package org.fencekit.testsupport;

import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The start of a command line for a JVM a test launches (a store in a second process, the webhook
 * server, the admin command): the java the test runs on, with the test JVM's own {@code -XX} flags,
 * which the build sets once ({@code test.jvm.flags} in the parent pom), so a child costs what the
 * test JVMs cost and no launcher repeats the flags.
 */
public final class ChildJvm {

  private ChildJvm() {}

  /** {@code java} and the test JVM's {@code -XX} flags, to add the child's own arguments to. */
  public static List<String> command() {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(flags());
    return command;
  }

  /** The {@code -XX} flags the test JVM was started with, in their order. */
  public static List<String> flags() {
    return ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
        .filter(argument -> argument.startsWith("-XX:"))
        .toList();
  }
}
