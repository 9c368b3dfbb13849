package org.fencekit.fulfilment;

import org.fencekit.store.spi.Validate;

/** Turns any failure text into an error a store accepts: non-blank, bounded, no U+0000. */
final class ErrorText {

  private ErrorText() {}

  /**
   * {@code text} with U+0000 and unpaired surrogates replaced by U+FFFD, cut to the store's limit
   * (never inside a surrogate pair), or {@code fallback} if it is blank.
   */
  static String of(String text, String fallback) {
    if (text == null || text.isBlank()) {
      text = fallback;
    }
    StringBuilder out = new StringBuilder(Math.min(text.length(), Validate.MAX_ERROR_LENGTH));
    for (int i = 0; i < text.length() && out.length() < Validate.MAX_ERROR_LENGTH; i++) {
      char c = text.charAt(i);
      if (Character.isHighSurrogate(c)
          && i + 1 < text.length()
          && Character.isLowSurrogate(text.charAt(i + 1))) {
        if (out.length() + 2 > Validate.MAX_ERROR_LENGTH) {
          break;
        }
        out.append(c).append(text.charAt(++i));
      } else if (c == '\0' || Character.isSurrogate(c)) {
        out.append('\uFFFD');
      } else {
        out.append(c);
      }
    }
    return out.toString();
  }
}
