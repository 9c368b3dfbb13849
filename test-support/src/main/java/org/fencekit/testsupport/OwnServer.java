package org.fencekit.testsupport;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;

/**
 * A server process of a fault test's own: its loopback port, its directory in {@code /tmp}, and its
 * teardown (resumed if paused, stopped at once, its directory deleted). Its static helpers run the
 * commands such servers are driven with: a bounded wait for each, signals by process id, polling,
 * and the rule for a missing binary (skip, or fail under {@code FENCEKIT_REQUIRE_BACKENDS=true}).
 */
abstract class OwnServer implements AutoCloseable {

  final int port;
  final Path dir;

  /**
   * Skips the test (or fails it) if {@code binary} is missing, else makes the server's directory.
   *
   * @param what the server, for that message: {@code a Redis server of the test's own}
   * @param dirPrefix how the directory's name starts
   */
  OwnServer(Path binary, String what, String dirPrefix, int port) {
    requireBinary(binary, what);
    this.port = port;
    try {
      this.dir = Files.createTempDirectory(dirPrefix);
    } catch (IOException e) {
      throw new IllegalStateException("cannot create a directory in /tmp", e);
    }
  }

  /** {@code server} once {@code start} has run; if it fails, the server is closed first. */
  static <S extends OwnServer> S started(S server, Consumer<S> start) {
    try {
      start.accept(server);
    } catch (RuntimeException e) {
      server.close();
      throw e;
    }
    return server;
  }

  /** The port it listens on. */
  public int port() {
    return port;
  }

  /** The server's process id. */
  public abstract long pid();

  /** Whether there is a server process to stop. */
  abstract boolean running();

  /** Stops the server at once. */
  abstract void stop();

  /** Resumes the server if it is paused (SIGCONT), stops it and deletes its directory. */
  @Override
  public final void close() {
    try {
      if (running()) {
        try {
          signalTree(pid(), "CONT");
        } catch (RuntimeException e) {
          // not paused
        }
        stop();
      }
    } catch (RuntimeException e) {
      // stopped already
    } finally {
      deleteTree(dir);
    }
  }

  @Override
  public String toString() {
    return getClass().getSimpleName() + "[127.0.0.1:" + port + ", " + dir + "]";
  }

  /** Skips the test, or fails it when every backend is required, if {@code binary} is missing. */
  static void requireBinary(Path binary, String what) {
    if (Files.isExecutable(binary)) {
      return;
    }
    String message =
        what
            + " needs "
            + binary
            + ", which is not there; install it (Debian: apt-get install -y postgresql mariadb-server"
            + " redis-server etcd-server; .ci/run does)";
    if ("true".equalsIgnoreCase(System.getenv(Backend.REQUIRE_VARIABLE))) {
      throw new IllegalStateException(message + " (" + Backend.REQUIRE_VARIABLE + "=true)");
    }
    Assumptions.abort(message);
  }

  /**
   * Runs a command to its end, at most {@code seconds}, and returns its output; fails on exit != 0.
   */
  static String run(int seconds, List<String> command) {
    try {
      Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
      process.getOutputStream().close();
      byte[] out;
      if (!process.waitFor(seconds, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        throw new IllegalStateException(
            "gave up after " + seconds + " s waiting for: " + String.join(" ", command));
      }
      out = process.getInputStream().readAllBytes();
      String text = new String(out, StandardCharsets.UTF_8);
      if (process.exitValue() != 0) {
        throw new IllegalStateException(
            String.join(" ", command) + " exited with " + process.exitValue() + ": " + text);
      }
      return text;
    } catch (IOException e) {
      throw new IllegalStateException("cannot run " + String.join(" ", command), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted running " + String.join(" ", command), e);
    }
  }

  /** Sends {@code signal} (STOP, CONT, KILL) to one process. */
  static void signal(long pid, String signal) {
    run(10, List.of("kill", "-" + signal, Long.toString(pid)));
  }

  /** Sends {@code signal} to a process and all its descendants, parent first. */
  static void signalTree(long pid, String signal) {
    signal(pid, signal);
    ProcessHandle.of(pid)
        .ifPresent(
            handle ->
                handle
                    .descendants()
                    .forEach(
                        child -> {
                          try {
                            signal(child.pid(), signal);
                          } catch (IllegalStateException gone) {
                            // exited meanwhile
                          }
                        }));
  }

  /** Deletes a directory tree, best effort. */
  static void deleteTree(Path dir) {
    if (dir == null || !Files.exists(dir)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException | RuntimeException e) {
      // a test's leftovers in /tmp are not worth failing it
    }
  }

  /**
   * Checks {@code condition} every {@code pauseMillis} until it holds or {@code millis} have
   * passed; returns whether it held.
   */
  static boolean poll(long millis, long pauseMillis, BooleanSupplier condition) {
    long deadline = System.nanoTime() + millis * 1_000_000;
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        return false;
      }
      pause(pauseMillis);
    }
    return true;
  }

  /** Sleeps, keeping the interrupt. */
  static void pause(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }
}
