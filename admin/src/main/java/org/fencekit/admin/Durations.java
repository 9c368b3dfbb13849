package org.fencekit.admin;

import java.time.Duration;
import org.fencekit.store.spec.DurationText;
import picocli.CommandLine;

/**
 * Reads an age on the command line with the webhook server's spellings ({@link DurationText}):
 * {@code 90s}, {@code 10m}, {@code 2h}, {@code 3d}, {@code PT2M}.
 */
final class Durations implements CommandLine.ITypeConverter<Duration> {

  @Override
  public Duration convert(String text) {
    try {
      return DurationText.parse("the age", text);
    } catch (IllegalArgumentException e) {
      throw new CommandLine.TypeConversionException(
          "'" + text + "' is not an age: use 90s, 10m, 2h, 3d or PT2M");
    }
  }
}
