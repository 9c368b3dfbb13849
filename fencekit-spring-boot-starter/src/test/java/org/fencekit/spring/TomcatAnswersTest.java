package org.fencekit.spring;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * What Tomcat answers itself, before a request reaches the application (so the starter cannot shape
 * it), as the README says: requests sent byte for byte to the webhook's path, which Tomcat cannot
 * parse, get its own HTML page; a TRACE, which it refuses after parsing, reaches the starter's
 * error filter and gets the server's JSON 405.
 */
@SpringBootTest(
    classes = StarterContract.TestApplication.class,
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@DirtiesContext
class TomcatAnswersTest {

  @LocalServerPort int port;

  @DynamicPropertySource
  static void properties(DynamicPropertyRegistry properties) throws IOException {
    Path directory = Files.createTempDirectory("fencekit-tomcat");
    properties.add("fencekit.store", () -> "sqlite:" + directory.resolve("orders.db"));
    properties.add(
        "spring.autoconfigure.exclude", () -> StarterContract.DATA_SOURCE_AUTO_CONFIGURATION);
    StarterContract.stripe(properties);
  }

  /**
   * "status html", "status json error", or what came. Each answer closes its connection, so the
   * read ends as soon as it has come; the limit is for a loaded machine, where an answer (above all
   * the first from the application, initialised lazily) can take more than the 5 s this was.
   */
  private String exchange(String raw) throws IOException {
    try (Socket socket = new Socket("127.0.0.1", port)) {
      socket.setSoTimeout(30_000);
      socket.getOutputStream().write(raw.getBytes(StandardCharsets.ISO_8859_1));
      socket.getOutputStream().flush();
      ByteArrayOutputStream seen = new ByteArrayOutputStream();
      InputStream in = socket.getInputStream();
      byte[] buffer = new byte[8192];
      try {
        int n;
        while ((n = in.read(buffer)) >= 0) {
          seen.write(buffer, 0, n);
        }
      } catch (SocketTimeoutException | java.net.SocketException e) {
        // what came is the answer
      }
      String text = seen.toString(StandardCharsets.UTF_8);
      int end = text.indexOf("\r\n\r\n");
      if (end < 0) {
        return text.isEmpty() ? "no answer" : text;
      }
      String status = text.substring(9, 12);
      String head = text.substring(0, end).toLowerCase(java.util.Locale.ROOT);
      String body = text.substring(end + 4);
      if (head.contains("content-type: text/html") && body.startsWith("<!doctype html>")) {
        return status + " html";
      }
      if (head.contains("content-type: application/json") && body.startsWith("{\"error\":\"")) {
        return status + " json " + body.substring(10, body.indexOf('"', 10));
      }
      return status + " " + head + "\n" + body;
    }
  }

  @Test
  void tomcatAnswersWhatItCannotParseWithItsOwnHtmlPageAndTraceReachesTheStarter()
      throws IOException {
    Map<String, String> raw = new LinkedHashMap<>();
    String webhook = "POST /stripe/webhook HTTP/1.1\r\nHost: x\r\n";
    raw.put("GARBAGE\r\n\r\n", "400 html");
    raw.put("POST /stripe/webhook HTTP/9.9\r\nHost: x\r\n\r\n", "505 html");
    raw.put("POST /stripe/webhook?x=<a> HTTP/1.1\r\nHost: x\r\n\r\n", "400 html");
    raw.put("POST /stripe/we\u0000bhook HTTP/1.1\r\nHost: x\r\n\r\n", "400 html");
    raw.put("POST /stripe%2Fwebhook HTTP/1.1\r\nHost: x\r\n\r\n", "400 html");
    raw.put("POST /stripe/" + "a".repeat(70_000) + " HTTP/1.1\r\nHost: x\r\n\r\n", "400 html");
    raw.put(webhook + "no colon\r\n\r\n", "400 html");
    raw.put(webhook + "X-Big: " + "y".repeat(20_000) + "\r\n\r\n", "400 html");
    raw.put("POST /stripe/webhook HTTP/1.1\r\nContent-Length: 0\r\n\r\n", "400 html");
    raw.put(webhook + "Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}", "400 html");
    raw.put(webhook + "Content-Length: abc\r\n\r\n{}", "400 html");
    raw.put(webhook + "Transfer-Encoding: gzip\r\n\r\n{}", "501 html");
    String trace = "TRACE /stripe/webhook HTTP/1.1\r\nHost: x\r\nConnection: close\r\n";
    raw.put(trace + "\r\n", "405 json method_not_allowed");
    raw.put(trace + "Accept: text/html\r\n\r\n", "405 json method_not_allowed");
    for (Map.Entry<String, String> c : raw.entrySet()) {
      String name = c.getKey().substring(0, Math.min(60, c.getKey().length()));
      assertEquals(c.getValue(), exchange(c.getKey()), name);
    }
  }
}
