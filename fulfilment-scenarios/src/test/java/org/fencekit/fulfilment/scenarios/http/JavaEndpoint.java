package org.fencekit.fulfilment.scenarios.http;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A small webhook endpoint in the test's JVM on a free loopback port: each delivery's body in, the
 * status {@link Handler} decides out (500 if it throws). It checks no signature.
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

  JavaEndpoint(Handler handler) throws IOException {
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
              status = handler.status(body);
            } catch (Exception e) {
              status = 500;
            }
            exchange.sendResponseHeaders(status, -1);
          }
        });
    server.start();
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
