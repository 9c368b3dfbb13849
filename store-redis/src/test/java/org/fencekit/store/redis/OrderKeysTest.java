package org.fencekit.store.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.util.JedisClusterCRC16;

/** The keys of an order: one slot per order, and no two session ids on one key. */
class OrderKeysTest {

  /** Ids that would break a naive {@code prefix + "{" + sessionId + "}"}. */
  static final List<String> TRICKY =
      List.of(
          "a",
          "a}",
          "{a}",
          "a}b",
          "}",
          "{",
          "{}",
          "}{",
          "a{b}c",
          "a%7D",
          "a%7d",
          "%",
          "%25",
          "%%",
          "a b",
          "a:b",
          "a*b?[c]",
          "é",
          "e\u0301",
          "\uD83D\uDE00",
          "cs_test_a1B2c3",
          "cs_test_a1B2c3}x");

  private final OrderKeys keys = new OrderKeys("fk:", false);

  /**
   * The hash tag Redis Cluster hashes: between the first '{' and the first '}' after it, if
   * non-empty.
   */
  static String hashedPart(String key) {
    int open = key.indexOf('{');
    if (open >= 0) {
      int close = key.indexOf('}', open + 1);
      if (close > open + 1) {
        return key.substring(open + 1, close);
      }
    }
    return key;
  }

  @Test
  @DisplayName(
      "an order's three keys hash to one slot, the tag of its session id, whatever braces the id holds")
  void oneSlotPerOrder() {
    for (String id : TRICKY) {
      String tag = OrderKeys.tag(id);
      for (String key : List.of(keys.order(id), keys.orphans(id), keys.orphanIds(id))) {
        assertEquals(
            tag,
            hashedPart(key),
            "key " + key + " of session id '" + id + "' hashes a part other than its tag");
        assertEquals(
            JedisClusterCRC16.getSlot(keys.order(id)),
            JedisClusterCRC16.getSlot(key),
            "key " + key + " of session id '" + id + "' is in another slot than the order's hash");
      }
      assertFalse(
          tag.contains("{") || tag.contains("}"),
          "tag '" + tag + "' of '" + id + "' holds a brace");
    }
  }

  @Test
  @DisplayName("distinct session ids never share a key: the tag reads back to the session id")
  void injective() {
    Map<String, String> seen = new HashMap<>();
    for (String id : TRICKY) {
      String key = keys.order(id);
      String before = seen.put(key, id);
      assertEquals(null, before, "session ids '" + before + "' and '" + id + "' share key " + key);
      assertEquals(id, OrderKeys.sessionIdOf(OrderKeys.tag(id)));
    }
    SplittableRandom random = new SplittableRandom(42);
    char[] alphabet = "ab{}%7D: é\uD83D\uDE00".toCharArray();
    for (int n = 0; n < 20_000; n++) {
      StringBuilder id = new StringBuilder();
      int length = 1 + random.nextInt(6);
      while (id.length() < length) {
        char c = alphabet[random.nextInt(alphabet.length)];
        if (Character.isHighSurrogate(c)) {
          id.append(c).append('\uDE00');
        } else if (!Character.isLowSurrogate(c)) {
          id.append(c);
        }
      }
      String key = keys.order(id.toString());
      String before = seen.putIfAbsent(key, id.toString());
      assertTrue(
          before == null || before.equals(id.toString()),
          "session ids '" + before + "' and '" + id + "' share key " + key);
      assertEquals(id.toString(), OrderKeys.sessionIdOf(OrderKeys.tag(id.toString())));
    }
  }

  @Test
  @DisplayName("the keys the scripts are sent, built as bytes, are the UTF-8 of the keys as text")
  void bytesAreTheTextKeys() {
    SplittableRandom random = new SplittableRandom(7);
    char[] alphabet = "aZ09-._~_{}%: é\u00ff\u0100\uD83D\uDE00".toCharArray();
    List<String> ids = new java.util.ArrayList<>(TRICKY);
    for (int n = 0; n < 2_000; n++) {
      StringBuilder id = new StringBuilder();
      for (int length = 1 + random.nextInt(8); id.length() < length; ) {
        char c = alphabet[random.nextInt(alphabet.length)];
        if (Character.isHighSurrogate(c)) {
          id.append(c).append('\uDE00');
        } else if (!Character.isLowSurrogate(c)) {
          id.append(c);
        }
      }
      ids.add(id.toString());
    }
    for (String id : ids) {
      OrderKeys.Keys of = keys.of(id);
      assertEquals(keys.order(id), of.hash().toString(), id);
      assertEquals(keys.order(id), of.hashKey(), id);
      assertEquals(keys.orphans(id), of.orphans().toString(), id);
      assertEquals(keys.orphanIds(id), of.orphanIds().toString(), id);
      assertEquals(keys.mismatches(id), of.mismatches().toString(), id);
      assertEquals(OrderKeys.tag(id), of.tag().toString(), id);
    }
  }

  @Test
  @DisplayName("plain Stripe ids stay readable in the key")
  void readable() {
    assertEquals("fk:{cs_test_a1B2c3}", keys.order("cs_test_a1B2c3"));
    assertEquals("fk:{a%7Db}", keys.order("a}b"));
    assertEquals("fk:{cs_test_a1B2c3}:orphans", keys.orphans("cs_test_a1B2c3"));
  }

  @Test
  @DisplayName("a key prefix with a brace or a glob character is refused, naming keyPrefix")
  void badPrefix() {
    for (String prefix : List.of("a{", "a}", "", "a*", "a b", "x".repeat(65))) {
      IllegalArgumentException e =
          assertThrows(IllegalArgumentException.class, () -> new OrderKeys(prefix, false));
      assertTrue(e.getMessage().startsWith("keyPrefix"), e.getMessage());
    }
  }
}
