package org.fencekit.testsupport;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One member of an {@link OwnEtcdCluster}: {@code etcd} on a free loopback client port and the port
 * after it for its peers, its data in {@code /tmp}. The test may kill it (SIGKILL: it keeps what it
 * had synced), pause and resume it (SIGSTOP, SIGCONT), and start it again on the same data; never a
 * member of the shared cluster.
 */
public final class OwnEtcd extends OwnServer {

  static final Path SERVER = Path.of("/usr/bin/etcd");

  private static final Pattern MEMBER_ID = Pattern.compile("\"member_id\"\\s*:\\s*\"(\\d+)\"");
  private static final Pattern LEADER = Pattern.compile("\"leader\"\\s*:\\s*\"(\\d+)\"");

  private final String name;
  private final String initialCluster;
  private Process process;

  OwnEtcd(String name, int port, String initialCluster) {
    super(SERVER, "an etcd cluster of the test's own", "fencekit-own-etcd-", port);
    this.name = name;
    this.initialCluster = initialCluster;
  }

  /** The member's name in its cluster, {@code m0}, {@code m1}, ... */
  public String name() {
    return name;
  }

  /** The member's client URL, {@code http://127.0.0.1:<port>}. */
  public String endpoint() {
    return "http://127.0.0.1:" + port;
  }

  /** Its peer URL, on the port after the client port. */
  String peerUrl() {
    return "http://127.0.0.1:" + (port + 1);
  }

  @Override
  public long pid() {
    return process.pid();
  }

  /** Starts the process on its data (new, or what it kept); returns at once. */
  void launch() {
    List<String> command =
        List.of(
            SERVER.toString(),
            "--name",
            name,
            "--data-dir",
            dir.resolve("data").toString(),
            "--listen-client-urls",
            endpoint(),
            "--advertise-client-urls",
            endpoint(),
            "--listen-peer-urls",
            peerUrl(),
            "--initial-advertise-peer-urls",
            peerUrl(),
            "--initial-cluster",
            initialCluster,
            "--initial-cluster-state",
            "new",
            "--initial-cluster-token",
            "fencekit-own");
    try {
      process =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("etcd.log").toFile()))
              .start();
    } catch (IOException e) {
      throw new IllegalStateException("cannot start " + String.join(" ", command), e);
    }
  }

  /** Kills the member with SIGKILL and waits for it to exit. */
  public void kill() {
    process.destroyForcibly();
    try {
      process.waitFor();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  /** Kills the member and starts it again on its data; returns once it answers. */
  public void restart() {
    kill();
    launch();
    awaitAnswers(20_000);
  }

  /** Starts the member again on its data if it is not running (after {@link #kill()}). */
  public void ensureRunning() {
    if (!running()) {
      launch();
      awaitAnswers(20_000);
    }
  }

  /** SIGSTOP: the member answers nobody, its peers included, until {@link #resume()}. */
  public void pause() {
    signal(pid(), "STOP");
  }

  /** SIGCONT after {@link #pause()}. */
  public void resume() {
    signal(pid(), "CONT");
  }

  /** Waits until the member answers its status; fails after {@code millis}. */
  public void awaitAnswers(long millis) {
    if (!poll(millis, 50, () -> status() != null)) {
      throw new IllegalStateException(
          name + " on port " + port + " does not answer; see " + dir.resolve("etcd.log"));
    }
  }

  /** Whether this member is its cluster's leader now (false if it does not answer). */
  public boolean leads() {
    String status = status();
    if (status == null) {
      return false;
    }
    Matcher member = MEMBER_ID.matcher(status);
    Matcher leader = LEADER.matcher(status);
    return member.find() && leader.find() && member.group(1).equals(leader.group(1));
  }

  /** The member's {@code /v3/maintenance/status} answer, or {@code null} if it does not answer. */
  private String status() {
    if (!running()) {
      return null;
    }
    try {
      return TestEtcd.post(endpoint(), "/v3/maintenance/status", "{}");
    } catch (RuntimeException e) {
      return null;
    }
  }

  @Override
  boolean running() {
    return process != null && process.isAlive();
  }

  @Override
  void stop() {
    kill();
  }

  @Override
  public String toString() {
    return "etcd member " + name + " [127.0.0.1:" + port + ", " + dir + "]";
  }
}
