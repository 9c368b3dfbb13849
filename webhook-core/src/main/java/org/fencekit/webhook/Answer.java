package org.fencekit.webhook;

import com.google.gson.JsonObject;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * An answer, whatever HTTP server writes it: its status, its error code when it refuses ({@code
 * bad_signature}, {@code overloaded}, ...; {@code null} for an outcome or a page), its one line of
 * JSON (without the line end) and the headers to send besides {@code Content-Type:
 * application/json}. The error code travels beside the JSON, so whoever counts answers reads it
 * here instead of parsing it back out of the body.
 *
 * @param status the HTTP status
 * @param error the error code the body's {@code error} member holds, or {@code null} if none
 * @param body one line of JSON
 * @param headers header names and values ({@code Retry-After}, {@code Allow}, {@code Connection})
 */
public record Answer(int status, String error, String body, Map<String, String> headers) {

  /** Checks the body is present and copies the headers. */
  public Answer {
    Objects.requireNonNull(body, "body");
    headers = Map.copyOf(headers);
  }

  /**
   * An answer that is not an error: an outcome, a page's state, a health result.
   *
   * @param status the HTTP status
   * @param body one line of JSON
   */
  public static Answer of(int status, String body) {
    return new Answer(status, null, body, Map.of());
  }

  /**
   * An error answer: {@code {"error":error,"reason":reason}}.
   *
   * @param status the HTTP status
   * @param error the error code, a fixed word
   * @param reason one line saying why and what to do
   */
  public static Answer error(int status, String error, String reason) {
    JsonObject json = new JsonObject();
    json.addProperty("error", Objects.requireNonNull(error, "error"));
    json.addProperty("reason", reason);
    return new Answer(status, error, json.toString(), Map.of());
  }

  /** 500 {@code internal}: what an adapter answers when the core failed to make an answer. */
  public static Answer failed() {
    return error(500, "internal", "the request failed (logged); try again");
  }

  /** This answer with one more header. */
  public Answer with(String name, String value) {
    Map<String, String> more = new LinkedHashMap<>(headers);
    more.put(name, value);
    return new Answer(status, error, body, more);
  }
}
