package org.fencekit.fulfilment.scenarios.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.fencekit.testsupport.LoopbackPorts;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The runner against endpoints that are not Java ({@code src/test/python/shop.py}): the correct one
 * holds every scenario it can judge; the one that settles without its fencing token reproduces the
 * incident in s02; the one without idempotency keys fails the crash after purchase, killed and as a
 * dropped connection; the one that keeps no cart with its claim buys another cart under a failed
 * order's session id (s24).
 *
 * <p>The cases run side by side: each launches its shop on a port and a database of its own, and
 * mostly waits out the scenarios' 5 s leases (one after another they took about 170 s).
 */
@Timeout(180)
@Execution(ExecutionMode.CONCURRENT)
class PythonEndpointScenariosTest {

  private static final String SECRET = "whsec_test_python_shop_7";

  @TempDir Path dir;

  @BeforeEach
  void python() {
    PythonEndpoint.requirePython();
  }

  /** The runner launching the shop in {@code mode} itself. */
  private Captured run(String mode, String... extra) {
    int port = LoopbackPorts.closed();
    List<String> args =
        new ArrayList<>(
            List.of("--launch", PythonEndpoint.launch(mode, port, dir.resolve(mode + ".db"))));
    args.addAll(List.of(extra));
    return runStarted(port, 0, args.toArray(String[]::new));
  }

  private static String row(Captured run, String shortId) {
    for (String line : run.out().split("\n")) {
      if (line.startsWith(shortId + "_")) {
        return line;
      }
    }
    throw new AssertionError("no row for " + shortId + " in\n" + run);
  }

  @Test
  void theFencedEndpointHoldsEveryScenarioAndTheJsonSaysSo() {
    Captured run = run("fenced", "--json");
    assertEquals(BlackBoxRunner.HELD, run.exit(), run.toString());
    JsonObject json = JsonParser.parseString(run.out()).getAsJsonObject();
    assertEquals(HttpScenario.values().length, json.get("held").getAsInt(), run.out());
    assertEquals(0, json.get("failed").getAsInt());
    assertEquals(0, json.get("skipped").getAsInt());
    for (JsonElement scenario : json.getAsJsonArray("scenarios")) {
      JsonObject each = scenario.getAsJsonObject();
      assertEquals("held", each.get("result").getAsString(), each.toString());
    }
    assertTrue(
        json.getAsJsonObject("not_played").has("s09_storeDownDuringCompleteNeverFailsAndBuysOnce"));
    assertFalse(run.out().contains(SECRET));
  }

  @Test
  void theEndpointWithoutAFencingTokenReproducesTheIncidentAndTheReplayPlaysItAgain()
      throws Exception {
    Captured run = run("no-token", "--scenario", "s02", "--scenario", "s01", "--scenario", "s08");
    assertEquals(BlackBoxRunner.FAILED, run.exit(), run.toString());
    assertTrue(row(run, "s02").contains("FAILED"), run.toString());
    assertTrue(row(run, "s02").contains("order was bought 2 times"), row(run, "s02"));
    assertTrue(row(run, "s01").contains("held"), run.toString());
    assertTrue(row(run, "s08").contains("held"), run.toString());
    // the timeline: d2 bought, then call 1's late refusal was written over it, then a third buy
    String out = run.out();
    int fulfilled = out.indexOf("d2 answered 200 {\"outcome\": \"fulfilled\"");
    int staleFailure = out.indexOf("d1 answered 500 {\"outcome\": \"provider_failed\"");
    int secondPurchase = out.indexOf("call #3 for order: bought item_");
    assertTrue(fulfilled > 0 && staleFailure > fulfilled && secondPurchase > staleFailure, out);
    Matcher replay = Pattern.compile("replay: (\\S+\\.json)").matcher(out);
    assertTrue(replay.find(), out);
    Path file = Path.of(replay.group(1));
    JsonObject saved = JsonParser.parseString(Files.readString(file)).getAsJsonObject();
    assertEquals(HttpScenario.S02.id(), saved.get("scenario").getAsString());
    assertEquals(PythonEndpoint.LEASE_SECONDS * 1000L, saved.get("lease_ms").getAsLong());
    assertTrue(saved.getAsJsonObject("steering").has("order"), saved.toString());

    int port = LoopbackPorts.closed();
    Captured again =
        Captured.run(
            "--endpoint",
            "http://127.0.0.1:" + port + "/webhook",
            "--secret",
            SECRET,
            "--provider-port",
            "0",
            "--replay-dir",
            dir.resolve("again").toString(),
            "--launch",
            PythonEndpoint.launch("no-token", port, dir.resolve("again.db")),
            "--replay",
            file.toString());
    assertEquals(BlackBoxRunner.FAILED, again.exit(), again.toString());
    assertTrue(row(again, "s02").contains("FAILED"), again.toString());
    assertTrue(again.out().contains("1 FAILED, 0 skipped"), "s02 alone: " + again);
  }

  @Test
  void theEndpointWithoutIdempotencyKeysBuysTwiceAfterACrashOrADroppedAnswer() {
    Captured run = run("no-key", "--scenario", "s05", "--scenario", "s05b");
    assertEquals(BlackBoxRunner.FAILED, run.exit(), run.toString());
    assertTrue(row(run, "s05").contains("FAILED"), run.toString());
    assertTrue(row(run, "s05").contains("order was bought 2 times"), run.toString());
    assertTrue(row(run, "s05b").contains("FAILED"), run.toString());
    assertTrue(row(run, "s05b").contains("order was bought 2 times"), run.toString());
    assertTrue(run.out().contains("with no Idempotency-Key"), run.out());
  }

  @ParameterizedTest(name = "--mode {0} fails s22")
  @CsvSource({"one-item, esim-world-10gb x1", "default-product, esim-eu-5gb x3"})
  void anEndpointThatBuysOtherGoodsThanOrderedFailsS22(String mode, String asked) {
    Captured run = run(mode, "--scenario", "s22", "--scenario", "s19");
    assertEquals(BlackBoxRunner.FAILED, run.exit(), run.toString());
    assertTrue(row(run, "s22").contains("FAILED"), run.toString());
    assertTrue(row(run, "s22").contains("asked the provider for " + asked + ";"), row(run, "s22"));
    assertTrue(row(run, "s19").contains("held"), "one of the first product is right: " + run);
  }

  @Test
  void theEndpointThatChecksNoSignatureFailsS23() {
    Captured run = run("no-signature", "--scenario", "s23", "--scenario", "s08");
    assertEquals(BlackBoxRunner.FAILED, run.exit(), run.toString());
    assertTrue(row(run, "s23").contains("FAILED"), run.toString());
    assertTrue(row(run, "s23").contains("no paid event signed by Stripe"), row(run, "s23"));
    assertTrue(row(run, "s08").contains("held"), "signed events are handled right: " + run);
  }

  @Test
  void theEndpointThatKeepsNoCartWithItsClaimFailsS24() {
    Captured run = run("cart-blind", "--scenario", "s24", "--scenario", "s19");
    assertEquals(BlackBoxRunner.FAILED, run.exit(), run.toString());
    assertTrue(row(run, "s24").contains("FAILED"), run.toString());
    assertTrue(
        row(run, "s24").contains("the other cart delivered under the order's session id"),
        row(run, "s24"));
    assertTrue(row(run, "s19").contains("held"), "two sessions of one cart are right: " + run);
  }

  @Test
  void theEndpointWhoseClientRetriesAnUnknownOutcomeAtOnceHoldsEveryScenario() {
    Captured run = run("retry-unknown");
    assertEquals(BlackBoxRunner.HELD, run.exit(), run.toString());
    assertTrue(
        row(run, "s15").matches("s15_\\S+ +held +answers 200 200 200;.*"),
        "the retry landed, so d1 was answered 200: " + run);
    assertTrue(row(run, "s05b").contains("held     answers 200;"), run.toString());
  }

  /** The runner launching two shops in {@code mode} on one database, a --launch each. */
  private Captured twoInstances(String mode, String... extra) {
    int first = LoopbackPorts.closed();
    int second = LoopbackPorts.closed();
    Path db = dir.resolve(mode + "-shared.db");
    List<String> args =
        new ArrayList<>(
            List.of(
                "--endpoint",
                "http://127.0.0.1:" + second + "/webhook",
                "--launch",
                PythonEndpoint.launch(mode, first, db),
                "--launch",
                PythonEndpoint.launch(mode, second, db)));
    args.addAll(List.of(extra));
    return runStarted(first, 0, args.toArray(String[]::new));
  }

  @Test
  void twoFencedShopsOnOneDatabaseHoldEveryScenario() {
    Captured run = twoInstances("fenced");
    assertEquals(BlackBoxRunner.HELD, run.exit(), run.toString());
    assertTrue(run.out().contains(" and http://127.0.0.1:"), "both named: " + run.out());
  }

  @Test
  void aShopThatLocksInsideItsProcessHoldsAloneAndBuysTwiceAsTwoInstances() {
    String[] crossing = {"--scenario", "s01", "--scenario", "s02", "--scenario", "s03"};
    Captured alone = run("process-lock", crossing);
    assertEquals(BlackBoxRunner.HELD, alone.exit(), "one process cannot show it: " + alone);
    Captured two = twoInstances("process-lock", crossing);
    assertEquals(BlackBoxRunner.FAILED, two.exit(), two.toString());
    assertTrue(row(two, "s01").contains("FAILED"), two.toString());
    assertTrue(row(two, "s01").contains("order was bought 2 times"), row(two, "s01"));
  }

  /** The shell command a user might start the shop with, in the background, its pid saved. */
  private String background(int port, String db) {
    return "("
        + PythonEndpoint.launch("fenced", port, dir.resolve(db)).substring("exec ".length())
        + " >> '"
        + dir.resolve("shop.log")
        + "' 2>&1 & echo $! > '"
        + dir.resolve("shop.pid")
        + "')";
  }

  /**
   * Starts the shop in the background as a user would, and waits until it accepts connections (as
   * long as the runner waits for an endpoint it starts): the runner gives an endpoint it did not
   * start 5 s, and Python beside a loaded build's other tests took longer.
   */
  private void startInBackground(int port, String db, int providerPort) throws Exception {
    shell(background(port, db), providerPort);
    long deadline = System.nanoTime() + EndpointControl.STARTUP.toNanos();
    while (true) {
      try (Socket probe = new Socket()) {
        probe.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1000);
        return;
      } catch (IOException notYet) {
        if (System.nanoTime() > deadline) {
          fail(
              "the shop started in the background did not listen on "
                  + port
                  + " within "
                  + EndpointControl.STARTUP
                  + "; its output is in "
                  + dir.resolve("shop.log"));
        }
        Thread.sleep(100);
      }
    }
  }

  private String killShop() {
    return "kill -9 $(cat '" + dir.resolve("shop.pid") + "')";
  }

  /** Runs {@code command} as the user would, with the secret and the provider in its env. */
  private void shell(String command, int providerPort) throws Exception {
    ProcessBuilder shell = new ProcessBuilder("sh", "-c", command);
    shell.environment().put("STRIPE_WEBHOOK_SECRET", SECRET);
    shell.environment().put("FENCEKIT_PROVIDER_URL", "http://127.0.0.1:" + providerPort);
    assertEquals(0, shell.start().waitFor(), command);
  }

  /** The runner against the shop on {@code port} (started by the test unless --launch is given). */
  private Captured runStarted(int port, int providerPort, String... extra) {
    List<String> args =
        new ArrayList<>(
            List.of(
                "--endpoint",
                "http://127.0.0.1:" + port + "/webhook",
                "--secret",
                SECRET,
                "--provider-port",
                String.valueOf(providerPort),
                "--lease",
                PythonEndpoint.LEASE_SECONDS + "s",
                "--replay-dir",
                dir.toString()));
    args.addAll(List.of(extra));
    return Captured.run(args.toArray(String[]::new));
  }

  @Test
  void withoutLaunchTheCrashScenariosAreSkippedNotFailed() throws Exception {
    int port = LoopbackPorts.closed();
    int providerPort = LoopbackPorts.closed();
    startInBackground(port, "own.db", providerPort);
    try {
      Captured run =
          runStarted(
              port, providerPort, "--scenario", "s04", "--scenario", "s05", "--scenario", "s08");
      assertEquals(BlackBoxRunner.HELD, run.exit(), run.toString());
      assertTrue(
          row(run, "s04").contains("skipped  needs --launch or --restart-command"), run.toString());
      assertTrue(row(run, "s05").contains("skipped"), run.toString());
      assertTrue(row(run, "s08").contains("held"), run.toString());
    } finally {
      shell(killShop(), providerPort);
    }
  }

  @Test
  void aRestartCommandCrashesTheEndpointTheUserStarted() throws Exception {
    int port = LoopbackPorts.closed();
    int providerPort = LoopbackPorts.closed();
    startInBackground(port, "restart.db", providerPort);
    try {
      Captured run =
          runStarted(
              port,
              providerPort,
              "--restart-command",
              killShop() + "; " + background(port, "restart.db"),
              "--scenario",
              "s04",
              "--scenario",
              "s05");
      assertEquals(BlackBoxRunner.HELD, run.exit(), run.toString());
      assertTrue(row(run, "s04").contains("held"), run.toString());
      assertTrue(row(run, "s05").contains("held"), run.toString());
      assertTrue(row(run, "s05").contains("answers none"), "the crash cut d1 off: " + run);
    } finally {
      shell(killShop(), providerPort);
    }
  }
}
