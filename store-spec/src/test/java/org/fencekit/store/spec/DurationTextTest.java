package org.fencekit.store.spec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class DurationTextTest {

  @Test
  void shortFormsAndIsoFormsAreRead() {
    assertEquals(Duration.ofMillis(250), DurationText.parse("X", "250ms"));
    assertEquals(Duration.ofSeconds(90), DurationText.parse("X", " 90s "));
    assertEquals(Duration.ofMinutes(10), DurationText.parse("X", "10M"));
    assertEquals(Duration.ofHours(2), DurationText.parse("X", "2h"));
    assertEquals(Duration.ofDays(3), DurationText.parse("X", "3d"));
    assertEquals(Duration.ofMinutes(2), DurationText.parse("X", "PT2M"));
    assertEquals(Duration.ofMinutes(2), DurationText.parse("X", "pt2m"));
    assertEquals(Duration.ZERO, DurationText.parse("X", "0s"));
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "ten minutes", "-5s", "PT-2M", "5 weeks", "99999999999999d"})
  void badTextNamesTheVariableAndGoodValues(String text) {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class, () -> DurationText.parse("FENCEKIT_LEASE", text));
    assertTrue(e.getMessage().startsWith("FENCEKIT_LEASE must be a duration"), e.getMessage());
    assertTrue(e.getMessage().contains("'" + text + "'"), e.getMessage());
    assertTrue(e.getMessage().contains("PT2M"), e.getMessage());
  }

  @Test
  void aMissingValueIsRefusedNamingTheVariable() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> DurationText.parse("--lease", null));
    assertTrue(e.getMessage().startsWith("--lease must be a duration"), e.getMessage());
  }
}
