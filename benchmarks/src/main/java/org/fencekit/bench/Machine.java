package org.fencekit.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** A one-line description of the machine the figures were measured on. */
final class Machine {

  private Machine() {}

  static String describe() {
    return cpu()
        + ", "
        + Runtime.getRuntime().availableProcessors()
        + " cores, "
        + System.getProperty("os.name")
        + " "
        + System.getProperty("os.version")
        + ", Java "
        + System.getProperty("java.version")
        + " ("
        + System.getProperty("java.vm.name")
        + ")";
  }

  /** The 1, 5 and 15 minute load averages, or "unknown": other work on the machine shows here. */
  static String loadAverage() {
    try {
      String[] fields = Files.readString(Path.of("/proc/loadavg")).trim().split(" ");
      return fields[0] + " " + fields[1] + " " + fields[2];
    } catch (IOException | RuntimeException e) {
      double load =
          java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
      return load < 0 ? "unknown" : String.format(java.util.Locale.ROOT, "%.2f", load);
    }
  }

  private static String cpu() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
        if (line.startsWith("model name")) {
          return line.substring(line.indexOf(':') + 1).trim();
        }
      }
    } catch (IOException | RuntimeException e) {
      // not Linux: the core count and JVM still say something
    }
    return System.getProperty("os.arch");
  }
}
