package org.fencekit.server;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.fencekit.store.OrderSnapshot;

/** Stripe's API for {@code GET /v1/checkout/sessions/{id}}, on a free loopback port. */
public final class FakeStripe {
  public final Map<String, String> sessions = new ConcurrentHashMap<>();
  public final Map<String, Integer> failures = new ConcurrentHashMap<>();
  public final List<String> requests = new CopyOnWriteArrayList<>();
  public final List<String> authorizations = new CopyOnWriteArrayList<>();
  private final ExecutorService threads = Executors.newFixedThreadPool(4);
  private HttpServer server;

  public void session(OrderSnapshot order, String paymentStatus) {
    sessions.put(order.sessionId(), StripeDeliveries.session(order, paymentStatus).toString());
  }

  public void fail(String sessionId, int status) {
    failures.put(sessionId, status);
  }

  public void start() throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext(
        "/v1/checkout/sessions/",
        exchange -> {
          String path = exchange.getRequestURI().getPath();
          requests.add(path);
          authorizations.add(exchange.getRequestHeaders().getFirst("Authorization"));
          String id = path.substring("/v1/checkout/sessions/".length());
          int status = 200;
          String body = sessions.get(id);
          if (failures.containsKey(id)) {
            status = failures.get(id);
            body = "{\"error\":{\"type\":\"api_error\",\"message\":\"An unknown error occurred\"}}";
          } else if (body == null) {
            status = 404;
            body =
                "{\"error\":{\"type\":\"invalid_request_error\",\"code\":\"resource_missing\","
                    + "\"param\":\"session\",\"message\":\"No such checkout.session: '"
                    + id
                    + "'\"}}";
          }
          byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
          exchange.getResponseHeaders().add("Content-Type", "application/json");
          exchange.getResponseHeaders().add("Request-Id", "req_fake");
          exchange.sendResponseHeaders(status, bytes.length);
          exchange.getResponseBody().write(bytes);
          exchange.close();
        });
    server.setExecutor(threads);
    server.start();
  }

  public int port() {
    return server.getAddress().getPort();
  }

  public void stop() {
    server.stop(0);
    threads.shutdownNow();
  }
}
