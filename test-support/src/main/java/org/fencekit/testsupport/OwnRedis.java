package org.fencekit.testsupport;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.Predicate;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.util.SafeEncoder;

/**
 * A Redis node of a fault test's own: {@code redis-server} on a free loopback port, no persistence
 * (no RDB, no AOF) unless the test asks, {@code DEBUG} enabled, its directory in {@code /tmp}. The
 * test may kill its clients, restart it (losing everything), pause it with {@code DEBUG SLEEP} or
 * SIGSTOP; never the shared server.
 */
public final class OwnRedis extends OwnServer {

  static final Path SERVER = Path.of("/usr/bin/redis-server");

  private final List<String> extra;
  private Process process;

  private OwnRedis(int port, List<String> extra) {
    super(SERVER, "a Redis server of the test's own", "fencekit-own-redis-", port);
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
    return started(new OwnRedis(port, List.of(extra)), OwnRedis::launch);
  }

  /** The node's URL, {@code redis://127.0.0.1:<port>}. */
  public String url() {
    return "redis://127.0.0.1:" + port;
  }

  /** The server's process id. */
  @Override
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
          () -> SafeEncoder.encode(args[0]), Arrays.copyOfRange(args, 1, args.length));
    }
  }

  /** {@code CLIENT KILL TYPE normal}: drops every client connection; returns how many. */
  public int killClients() {
    Object reply = command("CLIENT", "KILL", "TYPE", "normal", "SKIPME", "yes");
    return reply instanceof Long count ? count.intValue() : 0;
  }

  /** {@code DEBUG SLEEP}: the server answers nobody for {@code millis}. */
  public void sleep(long millis) {
    command("DEBUG", "SLEEP", String.format(Locale.ROOT, "%.3f", millis / 1000.0));
  }

  /**
   * Stops the server (SIGSTOP) and returns once the signal is sent: from then on it answers nobody,
   * while the kernel still accepts connections and queues what clients send.
   */
  public void pause() {
    signal(pid(), "STOP");
  }

  /** Resumes a server {@link #pause()} stopped (SIGCONT): it reads what was queued meanwhile. */
  public void resume() {
    signal(pid(), "CONT");
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

  /** Starts the server again after {@link #kill()}; returns once it answers PING. */
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
    if (!poll(20_000, 50, () -> answers() || !process.isAlive()) || !process.isAlive()) {
      throw new IllegalStateException(
          "redis-server on port " + port + " did not start; see " + dir.resolve("redis.log"));
    }
  }

  /**
   * The last {@code lines} lines of the server's log that {@code keep} accepts, for a failure
   * message; empty without a log.
   */
  public String logTail(int lines, Predicate<String> keep) {
    try {
      List<String> all =
          Files.readAllLines(dir.resolve("redis.log"), StandardCharsets.UTF_8).stream()
              .filter(keep)
              .toList();
      return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
    } catch (IOException e) {
      return "";
    }
  }

  /** Whether the server answers PING. */
  boolean answers() {
    try {
      return "PONG".equals(text(command("PING")));
    } catch (RuntimeException e) {
      return false;
    }
  }

  /** A reply as text: bulk bytes decoded as UTF-8, anything else as {@link String#valueOf}. */
  public static String text(Object reply) {
    return reply instanceof byte[] bytes
        ? new String(bytes, StandardCharsets.UTF_8)
        : String.valueOf(reply);
  }

  @Override
  boolean running() {
    return process != null && process.isAlive();
  }

  /** Kills the server (SIGKILL). */
  @Override
  void stop() {
    kill();
  }
}
