package org.fencekit.testsupport;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Loopback ports for tests that need a server nobody else uses, or an address nothing answers.
 *
 * <p>A port found by binding port 0 and releasing it is in the range the system hands out for port
 * 0 and for outgoing connections, so between its release and the test's server binding it, anything
 * else binding port 0 (a fake provider, a runner) may be given it. The ports here come from below
 * that range instead, are checked free, and are never handed out twice in one JVM nor by two JVMs
 * at once: each JVM locks the port's byte of one file in {@code java.io.tmpdir} ({@value
 * #RESERVATIONS_FILE}) until it exits, so parallel forks and modules, which pick from the same
 * range, skip a port another one holds (a server of a test's own may take seconds to bind it,
 * initdb first). Only a process that asks for that very port without this class can take one first.
 */
public final class LoopbackPorts {

  /** The lowest port handed out: above the well-known and most registered services' ports. */
  private static final int LOWEST = 10_000;

  /** Where Linux says which ports it hands out for port 0 ("32768\t60999"). */
  private static final Path RANGE = Path.of("/proc/sys/net/ipv4/ip_local_port_range");

  /** The IANA dynamic range, which other systems hand out for port 0. */
  private static final int[] IANA_RANGE = {49_152, 65_535};

  private static final Set<Integer> HANDED_OUT = new HashSet<>();

  /** The file whose byte at offset {@code port} the JVM that handed the port out keeps locked. */
  static final String RESERVATIONS_FILE = "fencekit-loopback-ports.lock";

  /**
   * The file's one channel in this JVM, opened at the first reservation and never closed: closing a
   * channel may release every lock the JVM holds on the file. Null if it cannot be opened (then the
   * ports are kept apart within this JVM only).
   */
  private static FileChannel reservations;

  private static boolean reservationsOpened;

  private LoopbackPorts() {}

  /**
   * A loopback port nothing listens on now, outside the system's range for port 0 and never handed
   * out before in this JVM, for a connection that must be refused or a server the test starts.
   *
   * @throws IllegalStateException if no such port is found
   */
  public static int closed() {
    return closedWith(0);
  }

  /**
   * Like {@link #closed()}, with {@code port + offset} closed and kept out of later choices as well
   * (a Redis Cluster node's bus port is its port + 10000).
   *
   * @throws IllegalStateException if no such port is found
   */
  public static synchronized int closedWith(int offset) {
    if (offset < 0) {
      throw new IllegalArgumentException("offset must be 0 or more, got " + offset);
    }
    int end = ephemeralRange()[0] - offset; // exclusive
    if (end <= LOWEST) {
      throw new IllegalStateException(
          "no loopback port below the system's range for port 0 ("
              + ephemeralRange()[0]
              + ") leaves room for a partner "
              + offset
              + " above it; widen "
              + RANGE
              + " or use a smaller offset");
    }
    ThreadLocalRandom random = ThreadLocalRandom.current();
    for (int tries = 0; tries < 1_000; tries++) {
      int port = random.nextInt(LOWEST, end);
      int partner = port + offset;
      if (!HANDED_OUT.contains(port)
          && !HANDED_OUT.contains(partner)
          && closed(port)
          && (offset == 0 || closed(partner))
          && reserve(port, offset == 0 ? -1 : partner)) {
        HANDED_OUT.add(port);
        HANDED_OUT.add(partner);
        return port;
      }
    }
    throw new IllegalStateException(
        "no free loopback port found from " + LOWEST + " to " + end + " in 1000 tries");
  }

  /**
   * Locks {@code port}'s byte, and {@code partner}'s unless it is -1, for this JVM's life; false,
   * holding neither, if another JVM holds either. True if the file cannot be opened or locked.
   */
  static synchronized boolean reserve(int port, int partner) {
    FileChannel channel = reservations();
    if (channel == null) {
      return true;
    }
    try {
      FileLock first = channel.tryLock(port, 1, false);
      if (first == null) {
        return false;
      }
      if (partner >= 0 && channel.tryLock(partner, 1, false) == null) {
        first.release();
        return false;
      }
      return true;
    } catch (OverlappingFileLockException e) {
      return false; // held by this JVM: not when HANDED_OUT is checked first
    } catch (IOException e) {
      return true; // a file system without locks: kept apart within this JVM only
    }
  }

  private static FileChannel reservations() {
    if (!reservationsOpened) {
      reservationsOpened = true;
      Path file = Path.of(System.getProperty("java.io.tmpdir"), RESERVATIONS_FILE);
      try {
        // without CREATE first: a file another user created in a sticky /tmp cannot be opened
        // with O_CREAT where fs.protected_regular is set, though its mode lets everyone write
        reservations = FileChannel.open(file, StandardOpenOption.WRITE);
      } catch (NoSuchFileException e) {
        try {
          reservations =
              FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
          Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-rw-rw-"));
        } catch (IOException | UnsupportedOperationException again) {
          // kept apart within this JVM only (or, if created, locked but not shared with others)
        }
      } catch (IOException e) {
        // kept apart within this JVM only
      }
    }
    return reservations;
  }

  /** Whether nothing listens on loopback {@code port} at the moment of the call. */
  static boolean closed(int port) {
    try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort() == port;
    } catch (IOException e) {
      return false;
    }
  }

  /** The first and last port the system hands out for port 0 (Linux's setting, else IANA's). */
  static int[] ephemeralRange() {
    try {
      // by line: procfs reports a size of 0, and Files.readString then read one byte of it ("3"),
      // which fell back to the IANA range and handed out ports inside Linux's
      String[] parts = Files.readAllLines(RANGE).get(0).trim().split("\\s+");
      return new int[] {Integer.parseInt(parts[0]), Integer.parseInt(parts[1])};
    } catch (IOException | RuntimeException e) {
      return IANA_RANGE.clone();
    }
  }
}
