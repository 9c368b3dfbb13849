package org.fencekit.store.redis;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.fencekit.store.OrderSnapshot;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** What the store sends and reads as bytes is what the same values read as text. */
class HashCodecTest {

  @Test
  @DisplayName("a snapshot written as bytes is the UTF-8 of its packed text, ASCII or not")
  void snapshotBytes() {
    List<OrderSnapshot> snapshots =
        List.of(
            new OrderSnapshot(
                "cs_test_a1B2c3", "esim-eu-5gb", 1, "customer@example.com", 1999, "usd"),
            new OrderSnapshot("a", "p", 1, null, 0, "eur"),
            new OrderSnapshot("cs_x", "p", Integer.MAX_VALUE, "x@y.z", Long.MAX_VALUE, "usd"),
            new OrderSnapshot("cs_10", "p", 10, "a@b.c", 100, "usd"),
            new OrderSnapshot("é}{", "prøduct", 9, "jürgen@example.com", 999, "chf"),
            new OrderSnapshot("cs_😀", "p", 12, null, 120, "usd"));
    for (OrderSnapshot s : snapshots) {
      assertArrayEquals(
          HashCodec.snapshot(s).getBytes(StandardCharsets.UTF_8),
          HashCodec.snapshotArg(s).raw(),
          s.toString());
    }
  }

  @Test
  @DisplayName("a number written as bytes is its decimal text")
  void numberBytes() {
    for (long value :
        new long[] {
          0, 1, 9, 10, 99, 100, 1999, 1_796_647_873_464L, -1, -10, Long.MAX_VALUE, Long.MIN_VALUE
        }) {
      assertEquals(Long.toString(value), LuaScript.Arg.of(value).toString());
    }
  }

  @Test
  @DisplayName("a script's time is read from its bytes as Long.parseLong reads its text")
  void epochMillis() {
    for (String text :
        List.of(
            "0",
            "7",
            "1796647873464",
            "-1796647873464",
            "+12",
            "999999999999999999",
            "9223372036854775807",
            "-9223372036854775808",
            "0012")) {
      byte[] bytes = text.getBytes(StandardCharsets.US_ASCII);
      assertEquals(Long.parseLong(text), HashCodec.epochMillis(bytes), text);
    }
    assertEquals(1_796_647_873_464L, HashCodec.epochMillis(1_796_647_873_464L));
    for (String text : List.of("", "-", "12a", "1.5", " 1", "9223372036854775808", "--1")) {
      assertThrows(
          NumberFormatException.class,
          () -> HashCodec.epochMillis(text.getBytes(StandardCharsets.US_ASCII)),
          text);
    }
    assertThrows(NumberFormatException.class, () -> HashCodec.epochMillis(null));
  }
}
