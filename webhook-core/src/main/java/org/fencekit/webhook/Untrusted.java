package org.fencekit.webhook;

import java.util.regex.Pattern;

/**
 * Text a request carried (an id, a path, a message quoting a field), made fit for an answer or a
 * log line: cut to a length with an ellipsis, control characters and unpaired surrogates escaped as
 * {@code \\uXXXX}, anything shaped like an email address masked, never blank.
 */
public final class Untrusted {

  /** How much of an id (an event id, a session id, a type) is shown. */
  public static final int ID_LENGTH = 64;

  /** How much of a value refused for its bound or its form is shown. */
  public static final int PREFIX_LENGTH = 16;

  /** How much of a reason built from request content is shown. */
  public static final int REASON_LENGTH = 300;

  private static final Pattern EMAIL =
      Pattern.compile("[^\\s@\"'`,;:<>()\\[\\]{}\\\\]{1,64}@[^\\s@\"'`,;:<>()\\[\\]{}\\\\]{1,255}");

  private Untrusted() {}

  /** An id for a log line or an answer: at most {@value #ID_LENGTH} characters, then "…". */
  public static String id(String value) {
    return text(value, ID_LENGTH);
  }

  /**
   * The first {@value #PREFIX_LENGTH} characters of a value refused for its bound or its form, then
   * "…".
   */
  public static String prefix(String value) {
    return text(value, PREFIX_LENGTH);
  }

  /**
   * {@code value} cut after {@code max} characters (an ellipsis and the full length follow), with
   * control characters escaped and emails masked; {@code "(none)"} for null, {@code "(blank)"} for
   * blank text.
   */
  public static String text(String value, int max) {
    if (value == null) {
      return "(none)";
    }
    if (value.isBlank()) {
      return "(blank)";
    }
    // cut before the pattern runs, so its cost is bounded whatever was sent
    String head = value.length() > 4 * max ? value.substring(0, 4 * max) : value;
    String masked = EMAIL.matcher(head).replaceAll("***@***");
    StringBuilder out = new StringBuilder(Math.min(masked.length(), max) + 24);
    int end = Math.min(masked.length(), max);
    for (int i = 0; i < end; i++) {
      char c = masked.charAt(i);
      boolean pair =
          Character.isHighSurrogate(c)
              && i + 1 < end
              && Character.isLowSurrogate(masked.charAt(i + 1));
      if (pair) {
        out.append(c).append(masked.charAt(++i));
      } else if (Character.isISOControl(c) || Character.isSurrogate(c)) {
        out.append(String.format("\\u%04x", (int) c));
      } else {
        out.append(c);
      }
    }
    if (masked.length() > end || head.length() < value.length()) {
      out.append("… (").append(value.length()).append(" chars)");
    }
    return out.toString();
  }
}
