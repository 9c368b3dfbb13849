package org.fencekit.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.fencekit.fulfilment.CheckoutEvent;
import org.fencekit.fulfilment.PaymentStatus;
import org.fencekit.store.OrderSnapshot;
import org.fencekit.testsupport.ChildJvm;
import org.fencekit.testsupport.LoopbackPorts;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The server as an operator starts it: a process configured by environment variables, refusing a
 * bad configuration with exit code 2 and a message naming the variable, answering a bad signature
 * with 400 and a signed delivery with 200, and stopping on SIGTERM.
 */
class ServerProcessTest {

  @TempDir Path directory;

  private Process start(Map<String, String> environment) throws IOException {
    List<String> command = new ArrayList<>(ChildJvm.command());
    command.addAll(
        List.of("-cp", System.getProperty("java.class.path"), ServerMain.class.getName()));
    ProcessBuilder builder =
        new ProcessBuilder(command).directory(directory.toFile()).redirectErrorStream(true);
    builder
        .environment()
        .keySet()
        .removeIf(name -> name.startsWith("FENCEKIT_") || name.startsWith("STRIPE_"));
    builder.environment().putAll(environment);
    return builder.start();
  }

  /** The server's output up to its "listening" line (all of it if it exits first). */
  private static List<String> startUp(Process process) throws IOException {
    List<String> lines = new ArrayList<>();
    BufferedReader output =
        new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    String line;
    while ((line = output.readLine()) != null) {
      lines.add(line);
      if (line.startsWith("fencekit webhook server on")) {
        break;
      }
    }
    return lines;
  }

  private static String finish(Process process) throws Exception {
    if (!process.waitFor(60, TimeUnit.SECONDS)) {
      process.destroyForcibly(); // never leave a server running behind the test
      assertTrue(false, "the process did not exit in 60 s");
    }
    return new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
  }

  @Test
  void withoutTheSigningSecretItRefusesToStartAndSaysSo() throws Exception {
    Process process = start(Map.of());
    String output = finish(process);
    assertEquals(2, process.exitValue(), output);
    assertTrue(output.contains("STRIPE_WEBHOOK_SECRET is not set"), output);
  }

  @Test
  void aBadStoreOrPortOrLeaseNamesItsVariable() throws Exception {
    for (Map.Entry<String, String> bad :
        List.of(
            Map.entry("FENCEKIT_STORE", "mysql://localhost/shop"),
            Map.entry("FENCEKIT_PORT", "eighty"),
            Map.entry("FENCEKIT_LEASE", "two minutes"))) {
      Process process =
          start(
              Map.of(
                  "STRIPE_WEBHOOK_SECRET", StripeDeliveries.SECRET, bad.getKey(), bad.getValue()));
      String output = finish(process);
      assertEquals(2, process.exitValue(), bad + ": " + output);
      assertTrue(output.contains(bad.getKey()), bad + ": " + output);
    }
  }

  /** A provider whose constructor fails, as one missing its own configuration does. */
  public static final class ThrowingProvider implements org.fencekit.fulfilment.Provider {
    /** Always throws. */
    public ThrowingProvider() {
      throw new IllegalStateException("ESIM_API_KEY is not set");
    }

    @Override
    public org.fencekit.store.Item buy(org.fencekit.fulfilment.Purchase purchase) {
      throw new UnsupportedOperationException();
    }
  }

  private Process startWith(String variable, String value) throws IOException {
    return startWith(Map.of(variable, value));
  }

  private Process startWith(Map<String, String> variables) throws IOException {
    Map<String, String> environment = new java.util.HashMap<>();
    environment.put("STRIPE_WEBHOOK_SECRET", StripeDeliveries.SECRET);
    environment.put("FENCEKIT_STORE", "sqlite:" + directory.resolve("orders.db"));
    environment.put("FENCEKIT_HOST", "127.0.0.1");
    environment.put("FENCEKIT_PORT", "0");
    environment.putAll(variables);
    return start(environment);
  }

  @Test
  void aProviderOverHttpIsConfiguredOneWayAndABadValueNamesItsVariable() throws Exception {
    String classVariable = "FENCEKIT_PROVIDER (or --provider)";
    String urlVariable = "FENCEKIT_PROVIDER_URL (or --provider-url)";
    String timeoutVariable = "FENCEKIT_PROVIDER_TIMEOUT (or --provider-timeout)";
    List<Map.Entry<Map<String, String>, List<String>>> cases =
        List.of(
            Map.entry(
                Map.of(
                    "FENCEKIT_PROVIDER",
                    DemoProvider.class.getName(),
                    "FENCEKIT_PROVIDER_URL",
                    "http://127.0.0.1:9099"),
                List.of(classVariable, urlVariable, "both set")),
            Map.entry(
                Map.of("FENCEKIT_PROVIDER_URL", "ftp://127.0.0.1:9099"),
                List.of(urlVariable, "http://127.0.0.1:9099")),
            Map.entry(
                Map.of("FENCEKIT_PROVIDER_URL", "http://shop:hunter2@127.0.0.1:9099"),
                List.of(urlVariable, "credentials")),
            Map.entry(Map.of("FENCEKIT_PROVIDER_URL", "127.0.0.1:9099"), List.of(urlVariable)),
            Map.entry(Map.of("FENCEKIT_PROVIDER_TIMEOUT", "0s"), List.of(timeoutVariable)),
            Map.entry(
                Map.of(
                    "FENCEKIT_PROVIDER_URL", "http://127.0.0.1:9099",
                    "FENCEKIT_PROVIDER_TIMEOUT", "soon"),
                List.of(timeoutVariable)));
    List<Process> processes = new ArrayList<>();
    for (Map.Entry<Map<String, String>, List<String>> each : cases) {
      processes.add(startWith(each.getKey()));
    }
    for (int i = 0; i < cases.size(); i++) {
      Map<String, String> variables = cases.get(i).getKey();
      String output = finish(processes.get(i));
      assertEquals(2, processes.get(i).exitValue(), variables + ": " + output);
      for (String expected : cases.get(i).getValue()) {
        assertTrue(output.contains(expected), variables + ": no '" + expected + "' in " + output);
      }
      assertTrue(!output.contains("hunter2"), "a credential printed: " + output);
      assertTrue(!output.contains("fencekit webhook server on"), variables + " started: " + output);
    }
  }

  @Test
  void theHelpListsBuyingOverHttp() {
    java.io.StringWriter help = new java.io.StringWriter();
    picocli.CommandLine line = ServerMain.commandLine();
    line.setOut(new java.io.PrintWriter(help));
    assertEquals(0, line.execute("--help"));
    for (String expected :
        List.of(
            "--provider-url=URL",
            "--provider-timeout=DURATION",
            "FENCEKIT_PROVIDER_URL",
            "FENCEKIT_PROVIDER_TIMEOUT",
            "Buy over HTTP",
            "default 30s")) {
      assertTrue(
          help.toString().replaceAll("\\s+", " ").contains(expected),
          "no '" + expected + "' in " + help);
    }
  }

  @Test
  void itBuysFromAProviderOverHttpWithTheOrdersKey() throws Exception {
    List<String> keys = java.util.Collections.synchronizedList(new ArrayList<>());
    com.sun.net.httpserver.HttpServer provider =
        com.sun.net.httpserver.HttpServer.create(
            new java.net.InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    provider.createContext(
        "/purchases",
        exchange -> {
          exchange.getRequestBody().readAllBytes();
          String key = exchange.getRequestHeaders().getFirst("Idempotency-Key");
          keys.add(key);
          boolean refuse = key.endsWith("refused");
          byte[] body =
              (refuse
                      ? "{\"error\":\"out_of_stock\",\"message\":\"none left\\nat all\","
                          + "\"bought\":false}"
                      : "{\"item_id\":\"esim_http_1\",\"payload\":\"LPA:1$x$y\"}")
                  .getBytes(StandardCharsets.UTF_8);
          exchange.sendResponseHeaders(refuse ? 409 : 200, body.length);
          try (java.io.OutputStream out = exchange.getResponseBody()) {
            out.write(body);
          }
        });
    provider.start();
    String base = "http://127.0.0.1:" + provider.getAddress().getPort();
    int port = LoopbackPorts.closed(); // the server process binds it later
    Process process =
        startWith(Map.of("FENCEKIT_PROVIDER_URL", base, "FENCEKIT_PORT", String.valueOf(port)));
    try {
      String started = String.join("\n", startUp(process));
      assertTrue(
          started.contains("provider HttpProvider (POST " + base + "/purchases, timeout PT30S)"),
          started);
      StripeDeliveries stripe = new StripeDeliveries(port, Clock.systemUTC());
      HttpResponse<String> paid =
          stripe.deliver(
              CheckoutEvent.completed(
                  "evt_http_1",
                  PaymentStatus.PAID,
                  new OrderSnapshot("cs_test_http_bought", "esim-eu-5gb", 1, null, 1500, "eur")));
      assertEquals(200, paid.statusCode(), paid.body());
      assertTrue(paid.body().contains("esim_http_1"), paid.body());
      HttpResponse<String> refused =
          stripe.deliver(
              CheckoutEvent.completed(
                  "evt_http_2",
                  PaymentStatus.PAID,
                  new OrderSnapshot("cs_test_http_refused", "esim-eu-5gb", 1, null, 1500, "eur")));
      assertEquals(500, refused.statusCode(), refused.body());
      assertTrue(refused.body().contains("out_of_stock: none left\\\\u000aat all"), refused.body());
      assertEquals(
          List.of("fencekit-order-cs_test_http_bought", "fencekit-order-cs_test_http_refused"),
          keys);
    } finally {
      process.destroy();
      process.waitFor(60, TimeUnit.SECONDS);
      provider.stop(0);
    }
  }

  @Test
  void aStoreThatDoesNotAnswerExits1OnEveryBackend() throws Exception {
    try (ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      int closed = LoopbackPorts.closed();
      List<String> stores =
          List.of(
              "redis://127.0.0.1:" + silent.getLocalPort(), // accepts, never answers
              "redis://127.0.0.1:" + closed,
              "redis-cluster:127.0.0.1:" + closed,
              "jdbc:postgresql://127.0.0.1:" + closed + "/shop?user=postgres");
      List<Process> processes = new ArrayList<>();
      for (String store : stores) { // side by side: each waits out its own client's timeouts
        processes.add(startWith("FENCEKIT_STORE", store));
      }
      for (int i = 0; i < stores.size(); i++) {
        String store = stores.get(i);
        Process process = processes.get(i);
        String output = finish(process);
        assertEquals(1, process.exitValue(), store + ": " + output);
        assertTrue(output.contains("the store") || output.contains("cannot open"), output);
        assertTrue(!output.contains("fencekit webhook server on"), store + " started: " + output);
      }
    }
  }

  @Test
  void aProviderWhoseConstructorThrowsExits2WithItsOwnMessage() throws Exception {
    Process process = startWith("FENCEKIT_PROVIDER", ThrowingProvider.class.getName());
    String output = finish(process);
    assertEquals(2, process.exitValue(), output);
    assertTrue(output.contains("ESIM_API_KEY is not set"), output);
    assertTrue(output.contains("FENCEKIT_PROVIDER"), output);
    assertTrue(!output.contains("no public no-argument constructor"), output);
  }

  @Test
  void aHostThatCannotBeBoundSaysSoNotThatThePortIsTaken() throws Exception {
    Process unresolvable = startWith("FENCEKIT_HOST", "no-such-host.invalid");
    String output = finish(unresolvable);
    assertEquals(2, unresolvable.exitValue(), output);
    assertTrue(output.contains("FENCEKIT_HOST"), output);
    assertTrue(output.contains("does not resolve"), output);
    Process foreign = startWith("FENCEKIT_HOST", "192.0.2.1"); // TEST-NET-1, never local
    output = finish(foreign);
    assertEquals(1, foreign.exitValue(), output);
    assertTrue(output.contains("not an address this machine can bind"), output);
    assertTrue(!output.contains("port is taken"), output);
  }

  @Test
  void itServesSignedDeliveriesRefusesBadSignaturesAndStopsOnSigterm() throws Exception {
    int port = LoopbackPorts.closed(); // the server process binds it later
    Process process =
        start(
            Map.of(
                "STRIPE_WEBHOOK_SECRET",
                "whsec_previous," + StripeDeliveries.SECRET,
                "FENCEKIT_STORE",
                "sqlite:" + directory.resolve("orders.db"),
                "FENCEKIT_PORT",
                String.valueOf(port),
                "FENCEKIT_HOST",
                "127.0.0.1"));
    List<String> lines = startUp(process);
    assertTrue(
        lines.stream()
            .anyMatch(l -> l.startsWith("fencekit webhook server on http://127.0.0.1:" + port)),
        String.join("\n", lines));
    StripeDeliveries stripe = new StripeDeliveries(port, Clock.systemUTC());
    HttpResponse<String> forged = stripe.post("/webhook", "{\"id\":\"evt_1\"}", "t=1,v1=bad");
    assertEquals(400, forged.statusCode(), forged.body());
    assertTrue(forged.body().startsWith("{\"error\":\"bad_signature\""), forged.body());
    OrderSnapshot order =
        new OrderSnapshot("cs_test_process1", "esim-eu-5gb", 1, null, 1500, "eur");
    HttpResponse<String> paid =
        stripe.deliver(CheckoutEvent.completed("evt_2", PaymentStatus.PAID, order));
    assertEquals(200, paid.statusCode(), paid.body());
    assertTrue(paid.body().contains("\"fulfilled\""), paid.body());
    process.destroy(); // SIGTERM
    assertTrue(process.waitFor(60, TimeUnit.SECONDS), "SIGTERM did not stop the server");
    assertEquals(143, process.exitValue(), "the JVM's exit status after SIGTERM");
  }
}
