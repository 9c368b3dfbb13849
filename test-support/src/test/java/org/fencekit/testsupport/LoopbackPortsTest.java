package org.fencekit.testsupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * A port a test hands to a server it starts itself must stay free until that server binds it:
 * nothing that binds port 0 (a fake provider, another server) or connects out may be given it in
 * between, and no other caller in the JVM may be handed it too.
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
}
