package org.fencekit.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.fencekit.fulfilment.scenarios.http.BlackBoxRunner;
import org.fencekit.testsupport.ChildJvm;
import org.fencekit.testsupport.LoopbackPorts;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The black-box runner ({@code fencekit-scenarios}, called through its public entry point) against
 * this module's shaded jar as an operator runs it: two processes on one store, each launched by the
 * runner with {@code --launch} (the scenarios whose attempts cross deliver to both; the first is
 * killed with SIGKILL and started again for the crash scenarios), buying over HTTP from the
 * runner's provider ({@code FENCEKIT_PROVIDER_URL}, which the runner sets) with a 5 s lease (3 s
 * was too short on a machine at load 20: a delivery reached the provider 2.6 s after it was posted,
 * and the server rightly cut the call off before its lease ran out, answering 500). Every scenario
 * the runner can judge from outside must hold, none skipped, forged and stale events included. A
 * subclass names the store.
 *
 * <p>An {@code *IT}: failsafe runs it after {@code package}, with the jar's path in {@code
 * fencekit.server.jar}.
 */
@Timeout(300)
abstract class BlackBoxRunContract {

  private static final String LEASE = "5s";

  @TempDir Path directory;

  /** The store the server runs on, as {@code FENCEKIT_STORE} names it. */
  abstract String storeSpec();

  @Test
  void everyScenarioTheRunnerCanJudgeFromOutsideHolds() throws IOException {
    Path jar =
        Path.of(System.getProperty("fencekit.server.jar", "target/fencekit-webhook-server.jar"))
            .toAbsolutePath();
    assertTrue(
        Files.isRegularFile(jar),
        "no server jar at " + jar + ": run `./mvnw verify` (the *IT tests run after package)");
    int port = LoopbackPorts.closed();
    int secondPort = LoopbackPorts.closed();
    // the java the test runs on, with its flags (the client compiler and the serial collector)
    String java =
        String.join(" ", ChildJvm.command().stream().map(BlackBoxRunContract::quoted).toList());
    // options, not variables, so a FENCEKIT_* of the environment cannot change what is tested;
    // the runner sets STRIPE_WEBHOOK_SECRET, FENCEKIT_PROVIDER_URL and FENCEKIT_LEASE
    String launch =
        "exec env -u FENCEKIT_PROVIDER -u FENCEKIT_MAPPING -u FENCEKIT_PROVIDER_TIMEOUT "
            + java
            + " -jar "
            + quoted(jar.toString())
            + " --store "
            + quoted(storeSpec())
            + " --host 127.0.0.1 --port ";
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int exit =
        BlackBoxRunner.run(
            List.of(
                "--endpoint",
                "http://127.0.0.1:" + port + "/webhook",
                "--endpoint",
                "http://127.0.0.1:" + secondPort + "/webhook",
                "--secret",
                StripeDeliveries.SECRET,
                "--provider-port",
                "0",
                "--lease",
                LEASE,
                "--launch",
                launch + port,
                "--launch",
                launch + secondPort,
                "--replay-dir",
                directory.toString()),
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    String table = out.toString(StandardCharsets.UTF_8);
    System.out.println(getClass().getSimpleName() + " (" + storeSpec() + "):\n" + table);
    String report =
        table
            + err.toString(StandardCharsets.UTF_8)
            + "\nthe first server's log, last lines:\n"
            + serverLog("fencekit-scenarios-endpoint.log")
            + "\nthe second server's log, last lines:\n"
            + serverLog("fencekit-scenarios-endpoint-2.log");
    assertEquals(BlackBoxRunner.HELD, exit, report);
    Matcher total =
        Pattern.compile("(?m)^(\\d+) held, (\\d+) FAILED, (\\d+) skipped").matcher(table);
    assertTrue(total.find(), "no total line in\n" + report);
    assertTrue(Integer.parseInt(total.group(1)) > 0, report);
    assertEquals("0", total.group(2), report);
    assertEquals(
        "0", total.group(3), "a scenario was skipped (--launch lets every one play)\n" + report);
    assertTrue(table.contains(" and http://127.0.0.1:" + secondPort), "two instances: " + report);
  }

  private String serverLog(String name) throws IOException {
    Path log = directory.resolve(name);
    if (!Files.isRegularFile(log)) {
      return "(none)";
    }
    List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
    return String.join("\n", lines.subList(Math.max(0, lines.size() - 60), lines.size()));
  }

  /** {@code text} as one word for {@code sh -c}. */
  private static String quoted(String text) {
    return "'" + text.replace("'", "'\\''") + "'";
  }
}
