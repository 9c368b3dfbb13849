package org.fencekit.webhook;

import org.fencekit.store.spi.Validate;

/**
 * The documented bounds and forms of what a delivery carries (ids, text, numbers), checked before
 * anything is built from it. A refusal names the field and its length, and quotes at most {@value
 * Untrusted#PREFIX_LENGTH} characters of the value ({@link Untrusted#prefix}).
 */
final class Fields {

  /** The longest event id, session id or product id, in characters: the store's bound. */
  static final int MAX_ID_LENGTH = Validate.MAX_ID_LENGTH;

  /** The longest customer email, in characters: the store's bound. */
  static final int MAX_EMAIL_LENGTH = Validate.MAX_EMAIL_LENGTH;

  /** The longest payment status read ({@code no_payment_required} has 19 characters). */
  static final int MAX_PAYMENT_STATUS_LENGTH = 20;

  private Fields() {}

  /**
   * An id as Stripe writes them: 1 to {@value #MAX_ID_LENGTH} printable ASCII characters, no space.
   *
   * @param name the field, for the message
   * @return {@code value}
   * @throws IllegalArgumentException naming the field if it is out of bounds
   */
  static String id(String name, String value) {
    bounded(name, value, MAX_ID_LENGTH);
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c <= ' ' || c > '~') {
        throw new IllegalArgumentException(
            "%s must be printable ASCII without spaces, as Stripe's ids are; found U+%04X at index %d of '%s'"
                .formatted(name, (int) c, i, Untrusted.prefix(value)));
      }
    }
    return value;
  }

  /**
   * Text of 1 to {@code max} characters without control characters.
   *
   * @param name the field, for the message
   * @return {@code value}
   * @throws IllegalArgumentException naming the field if it is out of bounds
   */
  static String text(String name, String value, int max) {
    bounded(name, value, max);
    for (int i = 0; i < value.length(); i++) {
      if (Character.isISOControl(value.charAt(i))) {
        throw new IllegalArgumentException(
            "%s must not contain control characters; found U+%04X at index %d of '%s'"
                .formatted(name, (int) value.charAt(i), i, Untrusted.prefix(value)));
      }
    }
    return value;
  }

  private static void bounded(String name, String value, int max) {
    if (value.isBlank()) {
      throw new IllegalArgumentException(name + " is blank");
    }
    if (value.length() > max) {
      throw new IllegalArgumentException(
          "%s is %d characters, over its bound of %d (starts '%s')"
              .formatted(name, value.length(), max, Untrusted.prefix(value)));
    }
  }

  /**
   * Whether {@code text} is 1 to {@code maxDigits} ASCII digits, nothing else (no sign, no space).
   */
  static boolean digits(String text, int maxDigits) {
    if (text.isEmpty() || text.length() > maxDigits) {
      return false;
    }
    for (int i = 0; i < text.length(); i++) {
      if (text.charAt(i) < '0' || text.charAt(i) > '9') {
        return false;
      }
    }
    return true;
  }

  /**
   * A whole number written as ASCII digits only, from {@code min} to {@code max}: no sign, no
   * space, no other script's digits, no fraction or exponent.
   *
   * @param name the field, for the message
   * @throws IllegalArgumentException naming the field and the bounds otherwise
   */
  static long number(String name, String text, long min, long max) {
    int maxDigits = String.valueOf(max).length();
    long value = digits(text, maxDigits) ? Long.parseLong(text) : -1;
    if (value < min || value > max) {
      throw new IllegalArgumentException(
          "%s is '%s', not a whole number from %d to %d in ASCII digits"
              .formatted(name, Untrusted.prefix(text), min, max));
    }
    return value;
  }

  /**
   * A payment status short enough to name: the handler refuses one it does not know by its name.
   *
   * @return {@code status}
   */
  static String paymentStatus(String status) {
    if (status.length() > MAX_PAYMENT_STATUS_LENGTH) {
      throw new IllegalArgumentException(
          "payment_status is %d characters, not a Checkout payment status (starts '%s')"
              .formatted(status.length(), Untrusted.prefix(status)));
    }
    return status;
  }

  /**
   * {@code value} for a message: up to {@value Untrusted#ID_LENGTH} characters if within {@code
   * max}, else a prefix.
   */
  static String quote(String value, int max) {
    return value != null && value.length() > max ? Untrusted.prefix(value) : Untrusted.id(value);
  }
}
