package org.fencekit.store.redis;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import org.fencekit.store.Validate;

/**
 * The Redis keys of an order: {@code <prefix>{<tag>}} for its hash, and the same with {@code
 * :orphans} and {@code :orphan-ids} appended for its orphans.
 *
 * <p>Redis Cluster hashes only a key's tag, the text between its first '{' and the first '}' after
 * it, so the three keys of an order always share one slot. The tag is the session id's UTF-8 bytes,
 * percent-encoded except for {@code A-Z a-z 0-9 - . _ ~}: it never holds a brace (a session id with
 * '}' cannot end the tag early), and distinct session ids always give distinct tags, because the
 * encoding can be read back ({@link #sessionIdOf}). Stripe's ids ({@code cs_test_a1B2...}) are left
 * as they are, so keys stay readable in redis-cli. The prefix holds no brace either ({@link
 * Validate#keyPrefix}).
 */
final class OrderKeys {

  private static final char[] HEX = "0123456789ABCDEF".toCharArray();

  private final String prefix;

  /** Keys under {@code prefix}, which must pass {@link Validate#keyPrefix}. */
  OrderKeys(String prefix) {
    this.prefix = Validate.keyPrefix("keyPrefix", prefix);
  }

  /** The prefix every key of this store starts with. */
  String prefix() {
    return prefix;
  }

  /** The order's hash. */
  String order(String sessionId) {
    return prefix + '{' + tag(sessionId) + '}';
  }

  /** The order's orphans, a stream in the order they were recorded. */
  String orphans(String sessionId) {
    return order(sessionId) + ":orphans";
  }

  /** The identities of the order's orphans, {@code <fence>:<nonce>:<providerOrderId>}, a set. */
  String orphanIds(String sessionId) {
    return order(sessionId) + ":orphan-ids";
  }

  /**
   * The hash tag of a session id: its UTF-8 bytes, percent-encoded outside {@code [A-Za-z0-9._~-]}.
   */
  static String tag(String sessionId) {
    byte[] bytes = sessionId.getBytes(StandardCharsets.UTF_8);
    StringBuilder out = new StringBuilder(bytes.length + 8);
    for (byte b : bytes) {
      int c = b & 0xff;
      if (isPlain(c)) {
        out.append((char) c);
      } else {
        out.append('%').append(HEX[c >> 4]).append(HEX[c & 0xf]);
      }
    }
    return out.toString();
  }

  /**
   * The session id a tag encodes: the inverse of {@link #tag}.
   *
   * @throws IllegalArgumentException if {@code tag} is not what {@link #tag} writes
   */
  static String sessionIdOf(String tag) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(tag.length());
    for (int i = 0; i < tag.length(); i++) {
      char c = tag.charAt(i);
      if (c == '%'
          && i + 2 < tag.length()
          && hex(tag.charAt(i + 1)) >= 0
          && hex(tag.charAt(i + 2)) >= 0) {
        int b = hex(tag.charAt(i + 1)) << 4 | hex(tag.charAt(i + 2));
        if (isPlain(b)) {
          throw new IllegalArgumentException(
              "not a tag this store writes, '"
                  + tag
                  + "': %"
                  + tag.substring(i + 1, i + 3)
                  + " encodes a plain character");
        }
        bytes.write(b);
        i += 2;
      } else if (c < 0x80 && isPlain(c)) {
        bytes.write(c);
      } else {
        throw new IllegalArgumentException(
            "not a tag this store writes, '" + tag + "': unexpected '" + c + "' at " + i);
      }
    }
    return new String(bytes.toByteArray(), StandardCharsets.UTF_8);
  }

  private static boolean isPlain(int c) {
    return (c >= 'A' && c <= 'Z')
        || (c >= 'a' && c <= 'z')
        || (c >= '0' && c <= '9')
        || c == '-'
        || c == '.'
        || c == '_'
        || c == '~';
  }

  private static int hex(char c) {
    if (c >= '0' && c <= '9') {
      return c - '0';
    }
    return c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
  }
}
