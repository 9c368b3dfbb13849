package org.fencekit.store.spi;

import java.time.Duration;
import java.util.Objects;
import java.util.regex.Pattern;
import org.fencekit.store.OrderStore;

/**
 * Every input rule of the contract, in one place. The value types and requests of this package call
 * it from their constructors; a store calls it (through {@link WriteRequest} and {@link
 * ClaimRequest}) before anything reaches its backend, and a backend's builder calls {@link
 * #identifier} for table names and key prefixes.
 *
 * <p>Null arguments throw {@link NullPointerException}, other bad values {@link
 * IllegalArgumentException}; either message names the argument. Strings are checked to be
 * well-formed UTF-16 without U+0000, because a backend stores them as UTF-8 text: an unpaired
 * surrogate would be stored as '?' and two distinct session ids could become one key.
 */
public final class Validate {

  /** The longest session id, product id or provider order id, in chars. */
  public static final int MAX_ID_LENGTH = 255;

  /** The longest customer email, in chars. */
  public static final int MAX_EMAIL_LENGTH = 320;

  /** The longest error a fail may record, in chars; truncate longer ones (a stack trace) first. */
  public static final int MAX_ERROR_LENGTH = 8192;

  /** The longest item payload, in chars. */
  public static final int MAX_PAYLOAD_LENGTH = 65536;

  private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,62}");
  private static final Pattern KEY_PREFIX = Pattern.compile("[A-Za-z0-9_:.\\-]{1,64}");
  private static final Duration MIN_LEASE = Duration.ofMillis(1);

  private Validate() {}

  /**
   * A session id: non-blank, at most 255 chars, no control characters, well-formed UTF-16.
   *
   * @return {@code sessionId}
   */
  public static String sessionId(String sessionId) {
    return text("sessionId", sessionId, MAX_ID_LENGTH);
  }

  /**
   * A short identifying string: non-blank, at most {@code max} chars, no control characters,
   * well-formed UTF-16.
   *
   * @param name the argument's name, for the message
   * @return {@code value}
   */
  public static String text(String name, String value, int max) {
    content(name, value, max);
    if (value.isBlank()) {
      throw new IllegalArgumentException(name + " must not be blank");
    }
    for (int i = 0; i < value.length(); i++) {
      if (Character.isISOControl(value.charAt(i))) {
        throw new IllegalArgumentException(
            "%s must not contain control characters, found U+%04X at index %s in %s"
                .formatted(name, (int) value.charAt(i), i, quote(value)));
      }
    }
    return value;
  }

  /**
   * Free text (an error, a payload): at most {@code max} chars, well-formed UTF-16, no U+0000; line
   * breaks and tabs are allowed.
   *
   * @param name the argument's name, for the message
   * @return {@code value}
   */
  public static String content(String name, String value, int max) {
    Objects.requireNonNull(value, name);
    if (value.length() > max) {
      throw new IllegalArgumentException(
          "%s must be at most %s characters, got %s: %s"
              .formatted(name, max, value.length(), quote(value)));
    }
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c == '\0') {
        throw new IllegalArgumentException(name + " must not contain U+0000, found at index " + i);
      }
      if (Character.isHighSurrogate(c)
          && i + 1 < value.length()
          && Character.isLowSurrogate(value.charAt(i + 1))) {
        i++;
      } else if (Character.isSurrogate(c)) {
        throw new IllegalArgumentException(
            name + " must be well-formed UTF-16, found an unpaired surrogate at index " + i);
      }
    }
    return value;
  }

  /**
   * A failure description: non-blank free text of at most {@value #MAX_ERROR_LENGTH} chars.
   *
   * @return {@code error}
   */
  public static String error(String error) {
    content("error", error, MAX_ERROR_LENGTH);
    if (error.isBlank()) {
      throw new IllegalArgumentException("error must describe the failure, got a blank string");
    }
    return error;
  }

  /**
   * A currency code: exactly three ASCII letters.
   *
   * @return {@code currency}
   */
  public static String currency(String currency) {
    Objects.requireNonNull(currency, "currency");
    // a plain loop: this runs on every claim, and a stream allocated on each
    if (currency.length() != 3
        || !isAsciiLetter(currency.charAt(0))
        || !isAsciiLetter(currency.charAt(1))
        || !isAsciiLetter(currency.charAt(2))) {
      throw new IllegalArgumentException(
          "currency must be a three-letter ISO 4217 code such as 'usd', got " + quote(currency));
    }
    return currency;
  }

  private static boolean isAsciiLetter(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
  }

  /**
   * A lease: at least 1 ms and at most {@link OrderStore#MAX_LEASE}; stores keep it to the
   * millisecond.
   *
   * @return {@code lease}
   */
  public static Duration lease(Duration lease) {
    Objects.requireNonNull(lease, "lease");
    if (lease.compareTo(MIN_LEASE) < 0) {
      throw new IllegalArgumentException("lease must be at least 1 ms, got " + lease);
    }
    if (lease.compareTo(OrderStore.MAX_LEASE) > 0) {
      throw new IllegalArgumentException(
          "lease must be at most %s (24 h), got %s; a slow attempt should extend its lease instead"
              .formatted(OrderStore.MAX_LEASE, lease));
    }
    return lease;
  }

  /**
   * A non-null argument.
   *
   * @param name the argument's name, for the message
   * @return {@code value}
   */
  public static <T> T notNull(String name, T value) {
    return Objects.requireNonNull(value, name);
  }

  /**
   * A table or schema name: a plain SQL identifier, {@code [A-Za-z_][A-Za-z0-9_]{0,62}}, so it can
   * be placed in SQL without quoting.
   *
   * @param name the property's name, for the message
   * @return {@code value}
   */
  public static String identifier(String name, String value) {
    Objects.requireNonNull(value, name);
    if (!IDENTIFIER.matcher(value).matches()) {
      throw new IllegalArgumentException(
          name
              + " must be a plain identifier (a letter or '_', then letters, digits or '_',"
              + " at most 63 chars), got "
              + quote(value));
    }
    return value;
  }

  /**
   * A key prefix: 1 to 64 of {@code [A-Za-z0-9_:.-]}; no braces, so it cannot change a Redis
   * Cluster hash tag.
   *
   * @param name the property's name, for the message
   * @return {@code value}
   */
  public static String keyPrefix(String name, String value) {
    Objects.requireNonNull(value, name);
    if (!KEY_PREFIX.matcher(value).matches()) {
      throw new IllegalArgumentException(
          name + " must be 1 to 64 of letters, digits, '_', ':', '.' or '-', got " + quote(value));
    }
    return value;
  }

  /**
   * The one error of a call on a closed store: {@code "the postgres store is closed: cannot claim
   * order 'cs_1'; build a new store"}.
   *
   * @param store the store as the message names it ("postgres store", "sqlite store on orders.db")
   * @param operation the call refused ("claim", ...), or {@code null} where it is not known
   * @param sessionId the order it was for, or {@code null}
   */
  public static IllegalStateException storeClosed(
      String store, String operation, String sessionId) {
    return new IllegalStateException(
        "the %s is closed%s%s; build a new store"
            .formatted(
                store,
                operation == null ? "" : ": cannot " + operation,
                sessionId == null ? "" : " order " + quote(sessionId)));
  }

  /** A value for a message: quoted, control characters escaped, cut after 80 chars. */
  public static String quote(String value) {
    StringBuilder out = new StringBuilder("'");
    int end = Math.min(value.length(), 80);
    for (int i = 0; i < end; i++) {
      char c = value.charAt(i);
      boolean escaped = Character.isISOControl(c) || Character.isSurrogate(c);
      out.append(escaped ? String.format("\\u%04x", (int) c) : String.valueOf(c));
    }
    out.append('\'');
    if (value.length() > end) {
      out.append("... (").append(value.length()).append(" chars)");
    }
    return out.toString();
  }
}
