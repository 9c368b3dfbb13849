package org.fencekit.admin;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;

/**
 * Reads an age on the command line: {@code 90s}, {@code 10m}, {@code 2h}, {@code 3d}, {@code PT2M}.
 */
final class Durations implements CommandLine.ITypeConverter<Duration> {

  private static final Pattern SHORT = Pattern.compile("(\\d{1,9})\\s*(ms|s|m|h|d)");

  @Override
  public Duration convert(String text) {
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
      Duration parsed = Duration.parse(text.trim().toUpperCase(Locale.ROOT));
      if (!parsed.isNegative()) {
        return parsed;
      }
    } catch (DateTimeParseException | ArithmeticException e) {
      // reported below
    }
    throw new CommandLine.TypeConversionException(
        "'" + text + "' is not an age: use 90s, 10m, 2h, 3d or PT2M");
  }
}
