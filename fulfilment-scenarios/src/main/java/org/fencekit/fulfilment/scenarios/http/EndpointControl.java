package org.fencekit.fulfilment.scenarios.http;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The endpoint's process, as far as the runner controls it: with {@code --launch} it starts the
 * command itself (under {@code sh -c}, its output appended to a log file), waits until the endpoint
 * answers, and crashes it by killing the command and everything it started with SIGKILL, then
 * starts it again; with {@code --restart-command} it runs that command to crash and restart the
 * endpoint, then waits until it answers; with neither it cannot crash it.
 *
 * <p>The launched command gets {@code STRIPE_WEBHOOK_SECRET} (the runner's secret), {@code
 * FENCEKIT_PROVIDER_URL} (the provider's base URL) and {@code FENCEKIT_LEASE} (the lease) in its
 * environment.
 */
final class EndpointControl implements AutoCloseable {

  /** How long a started endpoint may take to answer. */
  static final Duration STARTUP = Duration.ofSeconds(30);

  /** The endpoint could not be started or does not answer. */
  static final class EndpointDown extends Exception {
    private static final long serialVersionUID = 1L;

    EndpointDown(String message) {
      super(message);
    }
  }

  private final URI endpoint;
  private final String launch;
  private final String restart;
  private final Map<String, String> environment;
  private final Path log;
  private final HttpClient client =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
  private Process process;

  EndpointControl(
      URI endpoint, String launch, String restart, Map<String, String> environment, Path log) {
    this.endpoint = endpoint;
    this.launch = launch;
    this.restart = restart;
    this.environment = Map.copyOf(environment);
    this.log = log;
  }

  /** Whether the runner can crash the endpoint (it has {@code --launch} or a restart command). */
  boolean canCrash() {
    return launch != null || restart != null;
  }

  /** Launches the endpoint if the runner starts it, and waits until it answers. */
  void start() throws EndpointDown {
    if (launch != null) {
      try {
        Files.deleteIfExists(log); // this run's output only; restarts append to it
      } catch (IOException e) {
        throw new EndpointDown("cannot clear the endpoint's log " + log + ": " + e.getMessage());
      }
      launch();
      awaitAnswering(STARTUP);
    } else {
      awaitAnswering(Duration.ofSeconds(5));
    }
  }

  /** Kills the endpoint with SIGKILL and starts it again (or runs the restart command). */
  synchronized void crash() throws EndpointDown {
    if (launch != null) {
      kill();
      launch();
    } else if (restart != null) {
      run(restart);
    } else {
      throw new IllegalStateException("no --launch and no --restart-command: cannot crash");
    }
    awaitAnswering(STARTUP);
  }

  /** Whether the endpoint answers HTTP at all (any status): an unsigned probe. */
  boolean answers() {
    HttpRequest probe =
        HttpRequest.newBuilder(endpoint)
            .timeout(Duration.ofSeconds(2))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString("{}"))
            .build();
    try {
      client.send(probe, HttpResponse.BodyHandlers.discarding());
      return true;
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  private void awaitAnswering(Duration patience) throws EndpointDown {
    long deadline = System.nanoTime() + patience.toNanos();
    while (!answers()) {
      if (process != null && !process.isAlive()) {
        throw new EndpointDown(
            String.format(
                "the endpoint's --launch command exited with status %s before %s answered; its"
                    + " output is in %s%s",
                process.exitValue(), endpoint, log, tail()));
      }
      if (System.nanoTime() > deadline) {
        throw new EndpointDown(
            String.format(
                "nothing answers HTTP at %s within %ss%s",
                endpoint,
                patience.toSeconds(),
                launch != null
                    ? " of launching it; its output is in " + log + tail()
                    : ": start the endpoint first, or give --launch \"CMD\" to have the runner"
                        + " start it"));
      }
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private void launch() throws EndpointDown {
    try {
      process = shell(launch);
    } catch (IOException e) {
      throw new EndpointDown("the --launch command could not be started: " + e.getMessage());
    }
  }

  /** Starts {@code sh -c command} with the endpoint's environment, its output into the log. */
  private Process shell(String command) throws IOException {
    ProcessBuilder builder = new ProcessBuilder("sh", "-c", command);
    builder.environment().putAll(environment);
    builder.redirectErrorStream(true);
    builder.redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
    Files.createDirectories(log.toAbsolutePath().getParent());
    return builder.start();
  }

  private void run(String command) throws EndpointDown {
    try {
      Process restarting = shell(command);
      if (!restarting.waitFor(60, TimeUnit.SECONDS)) {
        restarting.destroyForcibly();
        throw new EndpointDown("the --restart-command did not finish within 60s");
      }
      if (restarting.exitValue() != 0) {
        throw new EndpointDown(
            String.format(
                "the --restart-command exited with status %s; its output is in %s%s",
                restarting.exitValue(), log, tail()));
      }
    } catch (IOException e) {
      throw new EndpointDown("the --restart-command could not be run: " + e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new EndpointDown("interrupted while the --restart-command ran");
    }
  }

  /** SIGKILL to the launched command and everything it started, children first listed. */
  private void kill() {
    if (process == null) {
      return;
    }
    List<ProcessHandle> tree = process.descendants().toList();
    process.destroyForcibly();
    tree.forEach(ProcessHandle::destroyForcibly);
    try {
      process.waitFor(10, TimeUnit.SECONDS);
      for (ProcessHandle child : tree) {
        child.onExit().get(10, TimeUnit.SECONDS);
      }
    } catch (Exception e) {
      // best effort: a child that outlives SIGKILL for 10 s is reported by the next start
    }
    process = null;
  }

  private String tail() {
    try {
      List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
      List<String> last = lines.subList(Math.max(0, lines.size() - 8), lines.size());
      return last.isEmpty() ? "" : "; its last lines:\n  " + String.join("\n  ", last);
    } catch (IOException | RuntimeException e) {
      return "";
    }
  }

  /** Kills a launched endpoint. */
  @Override
  public synchronized void close() {
    kill();
  }
}
