package org.fencekit.server;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import org.fencekit.webhook.Answer;

/**
 * HTTP/1.1 over a plain socket, byte for byte: requests no client library would send (control
 * characters in headers, bad request lines, lying lengths), and the answer as it came off the wire.
 */
final class RawHttp {

  private RawHttp() {}

  /**
   * An answer off the wire.
   *
   * @param status the status code, or 0 if the server closed without answering
   * @param headers header names in lower case
   * @param body the body as text
   */
  record Answer(int status, Map<String, String> headers, String body) {

    /** The {@code error} (or {@code outcome}) of a one-line JSON body, else {@code null}. */
    String kind() {
      JsonObject json = json();
      if (json == null) {
        return null;
      }
      JsonElement kind = json.has("error") ? json.get("error") : json.get("outcome");
      return kind == null || !kind.isJsonPrimitive() ? null : kind.getAsString();
    }

    /** The body as a JSON object if it is one line of JSON with a one-line reason, else null. */
    JsonObject json() {
      String text = body.strip();
      if (text.isEmpty() || text.lines().count() != 1) {
        return null;
      }
      try {
        JsonElement parsed = JsonParser.parseString(text);
        if (!parsed.isJsonObject()) {
          return null;
        }
        JsonObject json = parsed.getAsJsonObject();
        JsonElement reason = json.get("reason");
        if (reason == null || !reason.isJsonPrimitive() || reason.getAsString().isBlank()) {
          return null;
        }
        String why = reason.getAsString();
        return why.contains("\n") || why.contains("\r") ? null : json;
      } catch (RuntimeException e) {
        return null;
      }
    }

    @Override
    public String toString() {
      return status + " " + headers + " " + (body.length() > 300 ? body.substring(0, 300) : body);
    }
  }

  /** A request with {@code Connection: close} and a {@code Content-Length} for {@code body}. */
  static byte[] request(String method, String path, Map<String, String> headers, byte[] body) {
    StringBuilder head = new StringBuilder(method + " " + path + " HTTP/1.1\r\n");
    head.append("Host: 127.0.0.1\r\nConnection: close\r\n");
    boolean length = false;
    for (Map.Entry<String, String> header : headers.entrySet()) {
      head.append(header.getKey()).append(": ").append(header.getValue()).append("\r\n");
      length |= header.getKey().equalsIgnoreCase("Content-Length");
      length |= header.getKey().equalsIgnoreCase("Transfer-Encoding");
    }
    if (!length && body != null) {
      head.append("Content-Length: ").append(body.length).append("\r\n");
    }
    head.append("\r\n");
    byte[] start = head.toString().getBytes(StandardCharsets.ISO_8859_1);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.writeBytes(start);
    if (body != null) {
      out.writeBytes(body);
    }
    return out.toByteArray();
  }

  /** Sends {@code bytes} and reads the answer until the server closes (at most 10 s). */
  static Answer exchange(int port, byte[] bytes) {
    try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
      socket.setSoTimeout(10_000);
      OutputStream out = socket.getOutputStream();
      try {
        out.write(bytes);
        out.flush();
        socket.shutdownOutput();
      } catch (IOException e) {
        // the server may answer and close before it has read everything
      }
      return parse(readAll(socket.getInputStream()));
    } catch (IOException e) {
      throw new IllegalStateException("exchange with 127.0.0.1:" + port + " failed: " + e, e);
    }
  }

  /**
   * Sends {@code bytes} and keeps the connection open, as a client still sending its body would;
   * returns the answer once its headers and its {@code Content-Length} of body have arrived, or
   * what came within {@code millis} (status 0 if no whole answer).
   */
  static Answer answerWhileSending(int port, byte[] bytes, int millis) {
    try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
      socket.setSoTimeout(millis);
      socket.getOutputStream().write(bytes);
      socket.getOutputStream().flush();
      ByteArrayOutputStream seen = new ByteArrayOutputStream();
      byte[] buffer = new byte[8192];
      InputStream in = socket.getInputStream();
      long deadline = System.nanoTime() + millis * 1_000_000L;
      try {
        int n;
        while (System.nanoTime() < deadline && (n = in.read(buffer)) >= 0) {
          seen.write(buffer, 0, n);
          Answer answer = parse(seen.toByteArray());
          String length = answer.headers().get("content-length");
          if (answer.status() != 0
              && length != null
              && answer.body().getBytes(StandardCharsets.UTF_8).length
                  >= Integer.parseInt(length)) {
            return answer;
          }
        }
      } catch (SocketTimeoutException e) {
        // no whole answer in time: what came is returned
      }
      Answer partial = parse(seen.toByteArray());
      return new Answer(0, partial.headers(), partial.body());
    } catch (IOException e) {
      throw new IllegalStateException("exchange with 127.0.0.1:" + port + " failed: " + e, e);
    }
  }

  private static byte[] readAll(InputStream in) throws IOException {
    ByteArrayOutputStream answer = new ByteArrayOutputStream();
    byte[] buffer = new byte[8192];
    try {
      int n;
      while ((n = in.read(buffer)) >= 0) {
        answer.write(buffer, 0, n);
      }
    } catch (SocketTimeoutException e) {
      throw new IllegalStateException("no end of the answer in 10 s: " + answer, e);
    } catch (IOException e) {
      // a reset after the answer: keep what came
    }
    return answer.toByteArray();
  }

  /** Parses a status line, headers and a (possibly chunked) body. */
  static Answer parse(byte[] raw) {
    String text = new String(raw, StandardCharsets.ISO_8859_1);
    int end = text.indexOf("\r\n\r\n");
    if (!text.startsWith("HTTP/1.1 ") || end < 0) {
      return new Answer(0, Map.of(), text);
    }
    String[] lines = text.substring(0, end).split("\r\n");
    int status = Integer.parseInt(lines[0].substring(9, 12));
    Map<String, String> headers = new LinkedHashMap<>();
    for (int i = 1; i < lines.length; i++) {
      int colon = lines[i].indexOf(':');
      headers.put(
          lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT),
          lines[i].substring(colon + 1).trim());
    }
    String body = text.substring(end + 4);
    if ("chunked".equalsIgnoreCase(headers.get("transfer-encoding"))) {
      StringBuilder joined = new StringBuilder();
      int at = 0;
      while (at < body.length()) {
        int eol = body.indexOf("\r\n", at);
        int size = Integer.parseInt(body.substring(at, eol).trim(), 16);
        if (size == 0) {
          break;
        }
        joined.append(body, eol + 2, eol + 2 + size);
        at = eol + 2 + size + 2;
      }
      body = joined.toString();
    }
    byte[] bytes = body.getBytes(StandardCharsets.ISO_8859_1);
    return new Answer(status, headers, new String(bytes, StandardCharsets.UTF_8));
  }
}
