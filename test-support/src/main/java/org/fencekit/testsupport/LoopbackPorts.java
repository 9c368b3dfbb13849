package org.fencekit.testsupport;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;

/** Loopback ports for tests that need a server nobody else uses, or an address nothing answers. */
public final class LoopbackPorts {

  private LoopbackPorts() {}

  /**
   * A loopback port nothing listens on at the moment of the call (bound, then released), for a
   * connection that must be refused or a server the test starts itself.
   */
  public static int closed() {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new IllegalStateException("cannot find a free loopback port", e);
    }
  }

  /** Whether nothing listens on loopback {@code port} at the moment of the call. */
  static boolean closed(int port) {
    try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort() == port;
    } catch (IOException e) {
      return false;
    }
  }
}
