package org.fencekit.testsupport;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;

/**
 * A Redis node of a fault test's own: {@code redis-server} on a free loopback port, no persistence
 * (no RDB, no AOF) unless the test asks, {@code DEBUG} enabled, its directory in {@code /tmp}. The
 * test may kill its clients, restart it (losing everything), pause it with {@code DEBUG SLEEP};
 * never the shared server.
 */
public final class OwnRedis implements AutoCloseable {

  static final Path SERVER = Path.of("/usr/bin/redis-server");

  private final Path dir;
  private final int port;
  private final List<String> extra;
  private Process process;

  private OwnRedis(Path dir, int port, List<String> extra) {
    this.dir = dir;
    this.port = port;
    this.extra = extra;
  }

  /**
   * Starts a node with {@code extra} arguments ({@code "--cluster-enabled", "yes"}); skips the test
   * if redis-server is not installed (fails with {@code FENCEKIT_REQUIRE_BACKENDS=true}).
   */
  public static OwnRedis start(String... extra) {
    return start(LoopbackPorts.closed(), extra);
  }

  static OwnRedis start(int port, String... extra) {
    OwnProcesses.requireBinary(SERVER, "a Redis server of the test's own");
    Path dir;
    try {
      dir = Files.createTempDirectory("fencekit-own-redis-");
    } catch (IOException e) {
      throw new IllegalStateException("cannot create a directory in /tmp", e);
    }
    OwnRedis node = new OwnRedis(dir, port, List.of(extra));
    try {
      node.launch();
    } catch (RuntimeException e) {
      node.close();
      throw e;
    }
    return node;
  }

  /** The node's URL, {@code redis://127.0.0.1:<port>}. */
  public String url() {
    return "redis://127.0.0.1:" + port;
  }

  /** The port it listens on. */
  public int port() {
    return port;
  }

  /** The server's process id. */
  public long pid() {
    return process.pid();
  }

  /** Runs one command on a connection of its own and returns the reply. */
  public Object command(String... args) {
    try (Jedis jedis =
        new Jedis(
            new HostAndPort("127.0.0.1", port),
            DefaultJedisClientConfig.builder().timeoutMillis(15_000).build())) {
      return jedis.sendCommand(
          () -> redis.clients.jedis.util.SafeEncoder.encode(args[0]),
          java.util.Arrays.copyOfRange(args, 1, args.length));
    }
  }

  /** {@code CLIENT KILL TYPE normal}: drops every client connection; returns how many. */
  public int killClients() {
    Object reply = command("CLIENT", "KILL", "TYPE", "normal", "SKIPME", "yes");
    return reply instanceof Long count ? count.intValue() : 0;
  }

  /** {@code DEBUG SLEEP}: the server answers nobody for {@code millis}. */
  public void sleep(long millis) {
    command("DEBUG", "SLEEP", String.format(java.util.Locale.ROOT, "%.3f", millis / 1000.0));
  }

  /** Kills the server with SIGKILL (everything it held is lost without persistence). */
  public void kill() {
    process.destroyForcibly();
    try {
      process.waitFor();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  /** Kills the server and starts it again on the same port: without persistence, empty. */
  public void restart() {
    kill();
    launch();
  }

  /** Starts the server again after {@link #kill()}. */
  public void launch() {
    List<String> command = new ArrayList<>();
    command.addAll(
        List.of(
            SERVER.toString(),
            "--port",
            Integer.toString(port),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            dir.toString(),
            "--enable-debug-command",
            "yes",
            "--protected-mode",
            "no",
            "--logfile",
            dir.resolve("redis.log").toString()));
    command.addAll(extra);
    try {
      process = new ProcessBuilder(command).redirectErrorStream(true).start();
    } catch (IOException e) {
      throw new IllegalStateException("cannot start " + String.join(" ", command), e);
    }
    long deadline = System.nanoTime() + 20_000_000_000L;
    while (true) {
      try {
        if ("PONG".equals(String.valueOf(text(command("PING"))))) {
          return;
        }
      } catch (RuntimeException e) {
        if (!process.isAlive() || System.nanoTime() > deadline) {
          throw new IllegalStateException(
              "redis-server on port " + port + " did not start; see " + dir.resolve("redis.log"),
              e);
        }
      }
      OwnProcesses.pause(50);
    }
  }

  /** A reply as text when it is bulk bytes, else as it is. */
  public static Object text(Object reply) {
    return reply instanceof byte[] bytes
        ? new String(bytes, java.nio.charset.StandardCharsets.UTF_8)
        : reply;
  }

  /** Kills the server and deletes its directory. */
  @Override
  public void close() {
    try {
      if (process != null && process.isAlive()) {
        try {
          OwnProcesses.signal(process.pid(), "CONT");
        } catch (RuntimeException e) {
          // not paused
        }
        kill();
      }
    } finally {
      OwnProcesses.deleteTree(dir);
    }
  }

  @Override
  public String toString() {
    return "OwnRedis[127.0.0.1:" + port + "]";
  }
}
