package org.fencekit.store.spec;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads a duration an operator writes in a variable or an option: {@code 250ms}, {@code 90s},
 * {@code 10m}, {@code 2h}, {@code 3d}, or ISO-8601 such as {@code PT2M}. Negative durations are
 * refused. The webhook server's {@code FENCEKIT_LEASE} and the admin command's ages share it, so
 * both accept the same spellings.
 */
public final class DurationText {

  private static final Pattern SHORT = Pattern.compile("(\\d{1,12})\\s*(ms|s|m|h|d)");

  private DurationText() {}

  /**
   * The duration {@code text} names.
   *
   * @param name the variable or option it came from, named in the error
   * @throws IllegalArgumentException naming {@code name}, the text, and good values
   */
  public static Duration parse(String name, String text) {
    Objects.requireNonNull(name, "name");
    if (text != null) {
      String value = text.trim().toLowerCase(Locale.ROOT);
      Matcher matcher = SHORT.matcher(value);
      try {
        if (matcher.matches()) {
          long amount = Long.parseLong(matcher.group(1));
          return switch (matcher.group(2)) {
            case "ms" -> Duration.ofMillis(amount);
            case "s" -> Duration.ofSeconds(amount);
            case "m" -> Duration.ofMinutes(amount);
            case "h" -> Duration.ofHours(amount);
            default -> Duration.ofDays(amount);
          };
        }
        Duration parsed = Duration.parse(value.toUpperCase(Locale.ROOT));
        if (!parsed.isNegative()) {
          return parsed;
        }
      } catch (DateTimeParseException | ArithmeticException e) {
        // reported below
      }
    }
    throw new IllegalArgumentException(
        name + " must be a duration such as 90s, 10m, 2h, 3d or PT2M, got '" + text + "'");
  }
}
