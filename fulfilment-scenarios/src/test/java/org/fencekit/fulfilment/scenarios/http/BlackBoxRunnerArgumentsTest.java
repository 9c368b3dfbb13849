package org.fencekit.fulfilment.scenarios.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import org.fencekit.testsupport.LoopbackPorts;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The command line: bad usage is 64 naming the argument, a run that cannot start is 2. */
@Timeout(60)
class BlackBoxRunnerArgumentsTest {

  private static final String SECRET = "whsec_test_never_printed_42";

  private static void assertUsage(String argument, Captured run) {
    assertEquals(BlackBoxRunner.USAGE, run.exit(), run.toString());
    assertEquals("", run.out(), run.toString());
    assertEquals(1, run.err().strip().lines().count(), "one line: " + run);
    assertTrue(run.err().contains(argument), "names " + argument + ": " + run);
    assertFalse(run.err().contains(SECRET), run.toString());
  }

  private static String[] with(String... extra) {
    String[] base = {
      "--endpoint", "http://127.0.0.1:1/webhook", "--secret", SECRET, "--lease", "2s"
    };
    String[] all = new String[base.length + extra.length];
    System.arraycopy(base, 0, all, 0, base.length);
    System.arraycopy(extra, 0, all, base.length, extra.length);
    return all;
  }

  @Test
  void eachBadArgumentIsExit64NamingItInOneLine() {
    assertUsage("--endpoint", Captured.run("--secret", SECRET, "--lease", "2s"));
    assertUsage(
        "--endpoint", Captured.run("--endpoint", "ftp://x/y", "--secret", SECRET, "--lease", "2s"));
    assertUsage(
        "--endpoint", Captured.run("--endpoint", "not a url", "--secret", SECRET, "--lease", "2s"));
    assertUsage("--lease", Captured.run("--endpoint", "http://127.0.0.1:1/", "--secret", SECRET));
    assertUsage(
        "--lease",
        Captured.run("--endpoint", "http://127.0.0.1:1/", "--secret", SECRET, "--lease", "5x"));
    assertUsage(
        "--lease",
        Captured.run("--endpoint", "http://127.0.0.1:1/", "--secret", SECRET, "--lease", "10ms"));
    assertUsage("--provider-port", Captured.run(with("--provider-port", "abc")));
    assertUsage("--provider-port", Captured.run(with("--provider-port", "70000")));
    assertUsage("--scenario", Captured.run(with("--scenario", "s99")));
    assertUsage("--restart-command", Captured.run(with("--launch", "a", "--restart-command", "b")));
    assertUsage("--replay", Captured.run(with("--replay", "/nonexistent/replay.json")));
    assertUsage("--frobnicate", Captured.run(with("--frobnicate")));
  }

  @Test
  void twoInstancesTakeTwoDistinctEndpointsAndOneLaunchEach() {
    assertUsage(
        "--endpoint",
        Captured.run(
            with("--endpoint", "http://127.0.0.1:2/webhook", "--endpoint", "http://127.0.0.1:3/")));
    assertUsage("--endpoint", Captured.run(with("--endpoint", "http://127.0.0.1:1/webhook")));
    assertUsage("--endpoint", Captured.run(with("--endpoint", "gopher://127.0.0.1:2/")));
    assertUsage(
        "--launch",
        Captured.run(with("--endpoint", "http://127.0.0.1:2/webhook", "--launch", "true")));
    assertUsage("--launch", Captured.run(with("--launch", "a", "--launch", "b")));
  }

  @Test
  void aMissingSecretIsNamedAndAMisspeltOneIsNotEchoed() {
    assertUsage(
        "--secret",
        Captured.run("--endpoint", "http://127.0.0.1:1/", "--secret", " ", "--lease", "2s"));
    Captured misspelt =
        Captured.run("--endpoint", "http://127.0.0.1:1/", "--secrt=" + SECRET, "--lease", "2s");
    assertUsage("--secrt", misspelt);
  }

  @Test
  void aReplayFileThatIsNotOneIsExit64(@TempDir Path dir) throws IOException {
    Path junk = Files.writeString(dir.resolve("junk.json"), "{\"scenario\":\"s99_nothing\"}");
    assertUsage("--replay", Captured.run(with("--replay", junk.toString())));
    Path notJson = Files.writeString(dir.resolve("x.json"), "]]");
    assertUsage("--replay", Captured.run(with("--replay", notJson.toString())));
  }

  @Test
  void helpIsExit0() {
    Captured help = Captured.run("--help");
    assertEquals(BlackBoxRunner.HELD, help.exit(), help.toString());
    assertTrue(help.out().contains("--provider-port"), help.out());
    assertTrue(help.out().contains("64"), help.out());
  }

  /** A run against a loopback port nothing listens on. */
  private static Captured againstClosedPort(int closed, Path dir, String... extra) {
    String[] base = {
      "--endpoint",
      "http://127.0.0.1:" + closed + "/webhook",
      "--secret",
      SECRET,
      "--lease",
      "2s",
      "--provider-port",
      "0",
      "--replay-dir",
      dir.toString()
    };
    String[] all = new String[base.length + extra.length];
    System.arraycopy(base, 0, all, 0, base.length);
    System.arraycopy(extra, 0, all, base.length, extra.length);
    return Captured.run(all);
  }

  @Test
  void anEndpointThatDoesNotAnswerIsExit2(@TempDir Path dir) {
    int closed = LoopbackPorts.closed();
    Captured run = againstClosedPort(closed, dir);
    assertEquals(BlackBoxRunner.CANNOT_RUN, run.exit(), run.toString());
    assertTrue(run.err().contains("nothing answers HTTP at http://127.0.0.1:" + closed), run.err());
    assertFalse(run.err().contains(SECRET), run.err());
  }

  @Test
  void aLaunchThatExitsIsExit2WithItsOutput(@TempDir Path dir) {
    Captured run =
        againstClosedPort(
            LoopbackPorts.closed(),
            dir,
            "--launch",
            "echo \"starting with $STRIPE_WEBHOOK_SECRET\"; exit 3");
    assertEquals(BlackBoxRunner.CANNOT_RUN, run.exit(), run.toString());
    assertTrue(run.err().contains("exited with status 3"), run.err());
    assertTrue(run.err().contains("starting with <secret>"), run.err());
    assertFalse(run.err().contains(SECRET), run.err());
  }

  @Test
  void aTakenProviderPortIsExit2(@TempDir Path dir) throws IOException {
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      Captured run =
          Captured.run(
              with(
                  "--provider-port",
                  String.valueOf(taken.getLocalPort()),
                  "--replay-dir",
                  dir.toString()));
      assertEquals(BlackBoxRunner.CANNOT_RUN, run.exit(), run.toString());
      assertTrue(run.err().contains("port is taken"), run.err());
      assertTrue(run.err().contains("--provider-port"), run.err());
    }
  }

  @Test
  void aProviderPortThatIsTheEndpointsIsExit2BeforeAnythingStarts(@TempDir Path dir) {
    int port = LoopbackPorts.closed();
    Path started = dir.resolve("started");
    Captured run =
        Captured.run(
            "--endpoint",
            "http://127.0.0.1:" + port + "/webhook",
            "--secret",
            SECRET,
            "--lease",
            "2s",
            "--provider-port",
            String.valueOf(port),
            "--launch",
            "touch " + started,
            "--replay-dir",
            dir.toString());
    assertEquals(BlackBoxRunner.CANNOT_RUN, run.exit(), run.toString());
    assertEquals(1, run.err().strip().lines().count(), "one line: " + run);
    assertTrue(run.err().contains("--provider-port " + port), run.err());
    assertTrue(run.err().contains("the endpoint's port"), run.err());
    assertFalse(Files.exists(started), "the endpoint was launched: " + run);
  }

  @Test
  void aProviderOnAnyPortNeverTakesTheEndpointsPort() throws IOException {
    int endpoint = LoopbackPorts.closed();
    int[] binds = {0};
    // the system hands the endpoint's port to the provider's first bind of port 0, as in a CI run
    // where --launch had not yet started the endpoint
    ProviderServer.Binder system =
        port -> ProviderServer.SYSTEM.bind(binds[0]++ == 0 && port == 0 ? endpoint : port);
    try (ProviderServer provider = ProviderServer.start(0, Set.of(endpoint), system)) {
      assertTrue(provider.port() != endpoint, "the provider took the endpoint's port " + endpoint);
      assertEquals(2, binds[0], "binds");
    }
    try (ServerSocket free = new ServerSocket(endpoint, 1, InetAddress.getLoopbackAddress())) {
      assertEquals(endpoint, free.getLocalPort(), "the endpoint's port was released");
    }
  }

  @Test
  void aProviderPortThatIsTheSecondEndpointsIsExit2Too(@TempDir Path dir) {
    int first = LoopbackPorts.closed();
    int second = LoopbackPorts.closed();
    Path started = dir.resolve("started");
    Captured run =
        Captured.run(
            "--endpoint",
            "http://127.0.0.1:" + first + "/webhook",
            "--endpoint",
            "http://127.0.0.1:" + second + "/webhook",
            "--secret",
            SECRET,
            "--lease",
            "2s",
            "--provider-port",
            String.valueOf(second),
            "--launch",
            "touch " + started,
            "--launch",
            "touch " + started,
            "--replay-dir",
            dir.toString());
    assertEquals(BlackBoxRunner.CANNOT_RUN, run.exit(), run.toString());
    assertTrue(
        run.err().contains("--provider-port " + second + " is the endpoint's port"), run.err());
    assertFalse(Files.exists(started), "an endpoint was launched: " + run);
  }

  @Test
  void aProviderOnAnyPortTakesNeitherEndpointsPort() throws IOException {
    int first = LoopbackPorts.closed();
    int second = LoopbackPorts.closed();
    int[] binds = {0};
    // the system hands out both endpoints' ports before a free one
    ProviderServer.Binder system =
        port ->
            ProviderServer.SYSTEM.bind(
                port != 0 ? port : binds[0]++ == 0 ? first : binds[0] == 2 ? second : 0);
    try (ProviderServer provider = ProviderServer.start(0, Set.of(first, second), system)) {
      assertTrue(provider.port() != first && provider.port() != second, "port " + provider.port());
      assertEquals(3, binds[0], "binds");
    }
    for (int port : new int[] {first, second}) {
      try (ServerSocket free = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
        assertEquals(port, free.getLocalPort(), "the endpoint's port was released");
      }
    }
  }
}
