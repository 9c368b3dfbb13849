package org.fencekit.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;
import org.fencekit.testsupport.LoopbackPorts;
import org.junit.jupiter.api.Assumptions;

/**
 * A single-member etcd of a test's own, for counters no other client may add to: {@code etcd} on a
 * free loopback client port and the port after it for its peer URL, its data in {@code /tmp},
 * killed and deleted on close. Ready when it logs that it serves clients. Skips the test when
 * {@code etcd} is not installed, fails instead under {@code FENCEKIT_REQUIRE_BACKENDS=true}.
 * (test-support's {@code OwnEtcdCluster} has three members, whose counters lag one another.)
 */
final class PrivateEtcd implements AutoCloseable {

  static final Path BINARY = Path.of("/usr/bin/etcd");

  private static final String READY = "ready to serve client requests";

  private final Process process;
  private final Path dir;
  private final int port;

  private PrivateEtcd(Process process, Path dir, int port) {
    this.process = process;
    this.dir = dir;
    this.port = port;
  }

  /** Starts the member; returns once it serves clients (within 30 s, else fails). */
  static PrivateEtcd start() {
    if (!Files.isExecutable(BINARY)) {
      String message =
          "a private etcd needs "
              + BINARY
              + ", which is not there; install it (Debian: apt-get install -y etcd-server)";
      if ("true".equalsIgnoreCase(System.getenv("FENCEKIT_REQUIRE_BACKENDS"))) {
        throw new IllegalStateException(message + " (FENCEKIT_REQUIRE_BACKENDS=true)");
      }
      Assumptions.abort(message);
    }
    int port = LoopbackPorts.closedWith(1);
    String client = "http://127.0.0.1:" + port;
    String peer = "http://127.0.0.1:" + (port + 1);
    Path dir;
    Process process;
    try {
      dir = Files.createTempDirectory("fencekit-bench-etcd-");
      process =
          new ProcessBuilder(
                  List.of(
                      BINARY.toString(),
                      "--name",
                      "p",
                      "--data-dir",
                      dir.resolve("data").toString(),
                      "--listen-client-urls",
                      client,
                      "--advertise-client-urls",
                      client,
                      "--listen-peer-urls",
                      peer,
                      "--initial-advertise-peer-urls",
                      peer,
                      "--initial-cluster",
                      "p=" + peer))
              .redirectErrorStream(true)
              .start();
    } catch (IOException e) {
      throw new IllegalStateException("cannot start " + BINARY + " on port " + port + ": " + e, e);
    }
    PrivateEtcd etcd = new PrivateEtcd(process, dir, port);
    // reads the log until the member serves, then drains it so that etcd never blocks on it
    CompletableFuture<Boolean> ready = new CompletableFuture<>();
    Thread reader =
        new Thread(
            () -> {
              try (BufferedReader log =
                  new BufferedReader(
                      new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line = log.readLine(); line != null; line = log.readLine()) {
                  if (line.contains(READY)) {
                    ready.complete(true);
                  }
                }
              } catch (IOException ended) {
                // the process is gone
              }
              ready.complete(false);
            },
            "private-etcd-log");
    reader.setDaemon(true);
    reader.start();
    boolean served;
    try {
      served = ready.get(30, TimeUnit.SECONDS);
    } catch (TimeoutException | ExecutionException e) {
      etcd.close();
      throw new IllegalStateException(
          "etcd on port " + port + " did not serve clients within 30 s; its data: " + dir, e);
    } catch (InterruptedException e) {
      etcd.close();
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted starting etcd", e);
    }
    if (!served) {
      etcd.close();
      throw new IllegalStateException(
          "etcd on port " + port + " exited before serving clients (exit " + exit(process) + ")");
    }
    return etcd;
  }

  /** The member's client URL, as {@code --url} and {@code FENCEKIT_ETCD_ENDPOINTS} take it. */
  String endpoint() {
    return "http://127.0.0.1:" + port;
  }

  /** Kills the member (SIGKILL) and deletes its data. */
  @Override
  public void close() {
    process.destroyForcibly();
    try {
      process.waitFor(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
    } catch (IOException e) {
      // left in /tmp
    }
  }

  private static String exit(Process process) {
    return process.isAlive() ? "none yet" : Integer.toString(process.exitValue());
  }
}
