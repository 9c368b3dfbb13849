package org.fencekit.fulfilment.scenarios.http;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A small webhook endpoint in the test's JVM on a free loopback port: each delivery's body in, the
 * status {@link Handler} decides out (500 if it throws). Given a secret, it first checks the
 * delivery's {@code Stripe-Signature} as Stripe's libraries do (400 if it is missing, wrong or more
 * than 5 minutes off); without one it checks none.
 */
final class JavaEndpoint implements AutoCloseable {

  /** Decides the status for one delivery. */
  @FunctionalInterface
  interface Handler {
    /**
     * The status to answer {@code body} with.
     *
     * @throws Exception answered 500
     */
    int status(String body) throws Exception;
  }

  private final HttpServer server;
  private final ExecutorService threads = Executors.newCachedThreadPool();

  /** An endpoint that checks no signature. */
  JavaEndpoint(Handler handler) throws IOException {
    this(null, handler);
  }

  /** An endpoint that refuses what {@code secret} did not sign recently ({@code null}: none). */
  JavaEndpoint(String secret, Handler handler) throws IOException {
    StripeSigner signer = secret == null ? null : new StripeSigner(secret);
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 32);
    server.setExecutor(threads);
    server.createContext(
        "/webhook",
        exchange -> {
          try (exchange) {
            String body =
                new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            int status;
            try {
              String signature = exchange.getRequestHeaders().getFirst("Stripe-Signature");
              status =
                  signer == null || signed(signer, signature, body) ? handler.status(body) : 400;
            } catch (Exception e) {
              status = 500;
            }
            exchange.sendResponseHeaders(status, -1);
          }
        });
    server.start();
  }

  /** Whether {@code header} is {@code t=<seconds>,v1=<hex>} of {@code body}, within 5 minutes. */
  private static boolean signed(StripeSigner signer, String header, String body) {
    if (header == null) {
      return false;
    }
    Map<String, String> parts = new HashMap<>();
    for (String part : header.split(",")) {
      String[] pair = part.split("=", 2);
      if (pair.length == 2) {
        parts.putIfAbsent(pair[0].trim(), pair[1].trim());
      }
    }
    String t = parts.get("t");
    if (t == null || !t.matches("[0-9]{1,12}") || !parts.containsKey("v1")) {
      return false;
    }
    long seconds = Long.parseLong(t);
    byte[] expected = signer.v1(seconds, body).getBytes(StandardCharsets.US_ASCII);
    return MessageDigest.isEqual(expected, parts.get("v1").getBytes(StandardCharsets.US_ASCII))
        && Math.abs(System.currentTimeMillis() / 1000 - seconds) <= 300;
  }

  /** The webhook URL. */
  String url() {
    return "http://127.0.0.1:" + server.getAddress().getPort() + "/webhook";
  }

  @Override
  public void close() {
    server.stop(0);
    threads.shutdownNow();
  }
}
