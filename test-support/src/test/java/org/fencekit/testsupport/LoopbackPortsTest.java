package org.fencekit.testsupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A port a test hands to a server it starts itself must stay free until that server binds it:
 * nothing that binds port 0 (a fake provider, another server) or connects out may be given it in
 * between, and no other caller in the JVM, nor another JVM (a parallel fork), may be handed it too.
 */
class LoopbackPortsTest {

  @Test
  void aClosedPortIsNeverOneTheSystemHandsOutForPortZero() throws IOException {
    int firstEphemeral = LoopbackPorts.ephemeralRange()[0];
    for (int i = 0; i < 50; i++) {
      int port = LoopbackPorts.closed();
      assertTrue(
          port < firstEphemeral,
          "port "
              + port
              + " is in the range the system gives to port 0 (from "
              + firstEphemeral
              + ")");
      try (ServerSocket bound = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
        assertTrue(bound.getLocalPort() != port, "port 0 was given " + port);
      }
    }
  }

  @Test
  void theRangeIsTheOneLinuxHandsOutFrom() throws IOException {
    java.nio.file.Path range = java.nio.file.Path.of("/proc/sys/net/ipv4/ip_local_port_range");
    org.junit.jupiter.api.Assumptions.assumeTrue(
        java.nio.file.Files.isReadable(range), "not Linux: no " + range);
    // read line by line: procfs reports a size of 0, and Files.readString read one byte of it
    String[] linux = java.nio.file.Files.readAllLines(range).get(0).trim().split("\\s+");
    assertEquals(
        List.of(Integer.parseInt(linux[0]), Integer.parseInt(linux[1])),
        List.of(LoopbackPorts.ephemeralRange()[0], LoopbackPorts.ephemeralRange()[1]));
  }

  @Test
  void noPortIsHandedOutTwiceInOneJvm() {
    Set<Integer> seen = new HashSet<>();
    for (int i = 0; i < 500; i++) {
      int port = LoopbackPorts.closed();
      assertTrue(seen.add(port), "port " + port + " handed out twice, after " + i + " others");
    }
  }

  @Test
  void aClosedPortIsFreeNow() {
    int port = LoopbackPorts.closed();
    assertTrue(LoopbackPorts.closed(port), "port " + port + " is in use");
  }

  @Test
  void aPortWithAPartnerHasBothFreeAndOutsideTheSystemsRange() {
    int firstEphemeral = LoopbackPorts.ephemeralRange()[0];
    int port = LoopbackPorts.closedWith(10_000);
    assertTrue(port + 10_000 < firstEphemeral, port + " + 10000 reaches " + firstEphemeral);
    assertTrue(LoopbackPorts.closed(port + 10_000), "partner port " + (port + 10_000) + " in use");
    Set<Integer> later = new HashSet<>();
    for (int i = 0; i < 200; i++) {
      later.add(LoopbackPorts.closed());
    }
    assertTrue(!later.contains(port + 10_000), "the partner port was handed out later");
    assertEquals(2, LoopbackPorts.ephemeralRange().length);
  }

  @Test
  void aPortAnotherJvmHoldsIsNotHandedOutUntilItExits() throws Exception {
    String java =
        ProcessHandle.current()
            .info()
            .command()
            .orElse(System.getProperty("java.home") + "/bin/java");
    String classpath =
        System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    Process other =
        new ProcessBuilder(java, "-cp", classpath, OtherJvm.class.getName())
            .redirectError(ProcessBuilder.Redirect.INHERIT)
            .start();
    try {
      String line =
          new BufferedReader(new InputStreamReader(other.getInputStream(), "UTF-8")).readLine();
      assertNotNull(line, "the other JVM handed out no port");
      int port = Integer.parseInt(line.trim());
      assertFalse(LoopbackPorts.reserve(port, -1), "port " + port + " is the other JVM's");
      other.getOutputStream().close(); // it exits at the end of its input
      assertTrue(other.waitFor(60, TimeUnit.SECONDS), "the other JVM did not exit");
      assertTrue(LoopbackPorts.reserve(port, -1), "port " + port + " is free once it exited");
    } finally {
      other.destroyForcibly();
    }
  }

  /** Another JVM: hands out one port, prints it, and exits at the end of its input. */
  static final class OtherJvm {
    public static void main(String[] args) throws IOException {
      System.out.println(LoopbackPorts.closed());
      System.out.flush();
      while (System.in.read() >= 0) {
        // held until the test closes our input
      }
    }
  }
}
