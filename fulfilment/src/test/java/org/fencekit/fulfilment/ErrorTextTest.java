package org.fencekit.fulfilment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.fencekit.store.spi.Validate;
import org.junit.jupiter.api.Test;

class ErrorTextTest {

  @Test
  void blankOrMissingTextFallsBack() {
    assertEquals("provider failed", ErrorText.of(null, "provider failed"));
    assertEquals("provider failed", ErrorText.of("  \n", "provider failed"));
  }

  @Test
  void textAStoreWouldRefuseIsMadeAcceptable() {
    String cleaned = ErrorText.of("bad\u0000byte and a lone \uD800 surrogate", "x");
    assertEquals("bad\uFFFDbyte and a lone \uFFFD surrogate", cleaned);
    assertEquals(cleaned, Validate.error(cleaned));
  }

  @Test
  void longTextIsCutAtTheLimitNeverInsideASurrogatePair() {
    String pairAtTheEdge = "a".repeat(Validate.MAX_ERROR_LENGTH - 1) + "\uD83D\uDE00tail";
    String cut = ErrorText.of(pairAtTheEdge, "x");
    assertEquals(Validate.MAX_ERROR_LENGTH - 1, cut.length());
    assertEquals(cut, Validate.error(cut));
    String pairInside = "a".repeat(10) + "\uD83D\uDE00" + "b".repeat(Validate.MAX_ERROR_LENGTH);
    String kept = ErrorText.of(pairInside, "x");
    assertEquals(Validate.MAX_ERROR_LENGTH, kept.length());
    assertTrue(kept.contains("\uD83D\uDE00"));
  }
}
