package org.fencekit.webhook;

import com.google.gson.JsonElement;
import com.google.gson.JsonParseException;
import com.google.gson.JsonParser;
import com.google.gson.Strictness;
import com.google.gson.stream.JsonReader;
import com.google.gson.stream.JsonToken;
import java.io.IOException;
import java.io.StringReader;

/**
 * JSON from the other side of a connection (a Stripe delivery, a provider's answer) read the one
 * strict way: RFC 8259 only, nested at most {@value #NESTING_LIMIT} deep, one value and nothing
 * after it.
 */
public final class StrictJson {

  /** How deep arrays and objects may nest before the text is refused. */
  public static final int NESTING_LIMIT = 64;

  private StrictJson() {}

  /**
   * The one JSON value {@code text} holds.
   *
   * @throws JsonParseException if it is not strict JSON, nests too deep or has more after it
   */
  public static JsonElement parse(String text) {
    try {
      JsonReader reader = new JsonReader(new StringReader(text));
      reader.setStrictness(Strictness.STRICT);
      reader.setNestingLimit(NESTING_LIMIT);
      JsonElement parsed = JsonParser.parseReader(reader);
      if (reader.peek() != JsonToken.END_DOCUMENT) {
        throw new JsonParseException("more text after the JSON value");
      }
      return parsed;
    } catch (IOException | IllegalStateException e) {
      throw new JsonParseException(e.getMessage(), e);
    }
  }

  /** A JSON string member, or {@code null} if absent or not a string. */
  public static String string(JsonElement element) {
    return element != null && element.isJsonPrimitive() && element.getAsJsonPrimitive().isString()
        ? element.getAsString()
        : null;
  }
}
