package org.fencekit.webhook;

import java.time.Duration;
import java.util.Objects;

/**
 * The checks of a setting's value that the core and its adapters share, each naming the setting.
 */
public final class SettingChecks {

  private SettingChecks() {}

  /**
   * Checks the setting {@code name} is present and more than zero.
   *
   * @throws IllegalArgumentException naming it otherwise
   */
  public static Duration positive(String name, Duration value) {
    Objects.requireNonNull(value, name);
    if (value.isNegative() || value.isZero()) {
      throw new IllegalArgumentException(name + " must be positive, got " + value);
    }
    return value;
  }

  /**
   * Checks the setting {@code name} is {@code min} to {@code max}.
   *
   * @throws IllegalArgumentException naming it otherwise
   */
  public static int within(String name, int value, int min, int max) {
    if (value < min || value > max) {
      throw new IllegalArgumentException(
          name + " must be " + min + " to " + max + ", got " + value);
    }
    return value;
  }
}
