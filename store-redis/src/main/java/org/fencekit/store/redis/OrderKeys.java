package org.fencekit.store.redis;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.fencekit.store.spi.Validate;
import redis.clients.jedis.util.JedisClusterCRC16;

/**
 * The Redis keys of an order: {@code <prefix>{<tag>}} for its hash, and the same with {@code
 * :orphans}, {@code :orphan-ids} and {@code :reconciled} appended for its orphans and their
 * reconciliations; the store's layout version at {@code <prefix>layout}; and the indexes of the
 * operator's listings ({@link #index}).
 *
 * <p>Redis Cluster hashes only a key's tag, the text between its first '{' and the first '}' after
 * it, so the three keys of an order always share one slot. The tag is the session id's UTF-8 bytes,
 * percent-encoded except for {@code A-Z a-z 0-9 - . _ ~}: it never holds a brace (a session id with
 * '}' cannot end the tag early), and distinct session ids always give distinct tags, because the
 * encoding can be read back ({@link #sessionIdOf}). Stripe's ids ({@code cs_test_a1B2...}) are left
 * as they are, so keys stay readable in redis-cli. The prefix holds no brace either ({@link
 * Validate#keyPrefix}).
 */
final class OrderKeys {

  private static final String HEX = "0123456789ABCDEF";

  /** The index of held claims, by the lease's end. */
  static final String CLAIMS = "claims";

  /** The index of FAILED orders, by the first failure. */
  static final String FAILED = "failed";

  /** The index of unreconciled orphans, by the instant each was recorded. */
  static final String ORPHANS = "orphans";

  /** The index of mismatched claims, by the instant each was recorded. */
  static final String MISMATCHES = "mismatches";

  private static final List<String> LISTINGS = List.of(CLAIMS, FAILED, ORPHANS, MISMATCHES);
  private static final int SLOTS = 16384;
  private static final byte[] ORPHANS_SUFFIX = bytes(":orphans");
  private static final byte[] ORPHAN_IDS_SUFFIX = bytes(":orphan-ids");
  private static final byte[] MISMATCHES_SUFFIX = bytes(":mismatches");

  private final String prefix;
  private final byte[] prefixBytes;
  private final boolean cluster;

  /** The index keys as script arguments, by listing (and slot), made on first use. */
  private final AtomicReferenceArray<LuaScript.Arg> indexKeys;

  /**
   * Keys under {@code prefix} on a node or a Cluster; {@code prefix} must pass {@link
   * Validate#keyPrefix}.
   *
   * @param cluster whether the keys live on a Redis Cluster: then each slot has index keys of its
   *     own ({@link #index})
   */
  OrderKeys(String prefix, boolean cluster) {
    this.prefix = Validate.keyPrefix("keyPrefix", prefix);
    this.prefixBytes = bytes(prefix);
    this.cluster = cluster;
    this.indexKeys = new AtomicReferenceArray<>(LISTINGS.size() * (cluster ? SLOTS : 1));
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  /** Whether the keys live on a Redis Cluster. */
  boolean cluster() {
    return cluster;
  }

  /** The store's layout version: a string key, "2" for this layout. */
  String layout() {
    return prefix + "layout";
  }

  /**
   * The order's mismatched claims, a hash: the claim's nonce to its stored and offered snapshot
   * ({@link HashCodec#mismatch}).
   */
  String mismatches(String sessionId) {
    return order(sessionId) + ":mismatches";
  }

  /** The reconciliations of the order's orphans, a hash: identity to {@code <epoch ms>:<note>}. */
  String reconciled(String sessionId) {
    return order(sessionId) + ":reconciled";
  }

  /**
   * The key of {@code listing}'s index ({@link #CLAIMS}, {@link #FAILED}, {@link #ORPHANS}) that
   * holds the order's entries: on a node one key per listing, {@code <prefix>index:<listing>}; on a
   * Cluster the key of the order's slot, {@code <prefix>{<slot's tag>}:index:<listing>} ({@link
   * SlotTags}), so the order's scripts touch one slot.
   */
  String index(String listing, String sessionId) {
    return cluster
        ? slotIndex(listing, JedisClusterCRC16.getSlot(order(sessionId)))
        : nodeIndex(listing);
  }

  /** The key of {@code listing}'s index for {@code slot} on a Cluster. */
  String slotIndex(String listing, int slot) {
    return prefix + '{' + SlotTags.of(slot) + "}:index:" + listing;
  }

  /** The single index key of {@code listing} on a node. */
  String nodeIndex(String listing) {
    return prefix + "index:" + listing;
  }

  /**
   * The session id whose order hash {@code key} is, or {@code null} if {@code key} is another of
   * the store's keys (an orphan stream, an index, the layout) or not the store's.
   */
  String sessionIdOfOrderKey(String key) {
    if (!key.startsWith(prefix + '{') || !key.endsWith("}")) {
      return null;
    }
    String tag = key.substring(prefix.length() + 1, key.length() - 1);
    if (tag.isEmpty() || tag.indexOf('{') >= 0 || tag.indexOf('}') >= 0) {
      return null;
    }
    try {
      return sessionIdOf(tag);
    } catch (IllegalArgumentException e) {
      return null;
    }
  }

  /** The prefix every key of this store starts with. */
  String prefix() {
    return prefix;
  }

  /**
   * One order's keys, its tag encoded (and on a Cluster its slot hashed) once, as the script
   * arguments each store call sends ({@link LuaScript.Arg}).
   */
  Keys of(String sessionId) {
    // an ASCII id's UTF-8 bytes are its chars: read them from the String, without encoding it
    byte[] utf8 = HashCodec.ascii(sessionId) ? null : sessionId.getBytes(StandardCharsets.UTF_8);
    int count = utf8 == null ? sessionId.length() : utf8.length;
    int length = prefixBytes.length + 2;
    for (int i = 0; i < count; i++) {
      length += isPlain(utf8 == null ? sessionId.charAt(i) : utf8[i] & 0xff) ? 1 : 3;
    }
    byte[] hash = Arrays.copyOf(prefixBytes, length);
    int at = prefixBytes.length;
    hash[at++] = '{';
    for (int i = 0; i < count; i++) {
      int c = utf8 == null ? sessionId.charAt(i) : utf8[i] & 0xff;
      if (isPlain(c)) {
        hash[at++] = (byte) c;
      } else {
        hash[at++] = '%';
        hash[at++] = (byte) HEX.charAt(c >> 4);
        hash[at++] = (byte) HEX.charAt(c & 0xf);
      }
    }
    hash[at] = '}';
    return new Keys(new LuaScript.Arg(hash));
  }

  /** The keys of one order ({@link #of}), as script arguments. */
  final class Keys {
    private final LuaScript.Arg hash;
    private final int slot;

    private Keys(LuaScript.Arg hash) {
      this.hash = hash;
      this.slot = cluster ? JedisClusterCRC16.getSlot(hash.raw()) : -1;
    }

    /** The order's hash. */
    LuaScript.Arg hash() {
      return hash;
    }

    /** The order's hash key as text, for messages. */
    String hashKey() {
      return hash.toString();
    }

    /** The order's tag, the suffix of its index members. */
    LuaScript.Arg tag() {
      return new LuaScript.Arg(
          Arrays.copyOfRange(hash.raw(), prefixBytes.length + 1, hash.raw().length - 1));
    }

    /** Its orphans' stream. */
    LuaScript.Arg orphans() {
      return suffixed(ORPHANS_SUFFIX);
    }

    /** Its orphans' identities. */
    LuaScript.Arg orphanIds() {
      return suffixed(ORPHAN_IDS_SUFFIX);
    }

    /** Its mismatched claims (see {@link OrderKeys#mismatches(String)}). */
    LuaScript.Arg mismatches() {
      return suffixed(MISMATCHES_SUFFIX);
    }

    private LuaScript.Arg suffixed(byte[] suffix) {
      byte[] raw = hash.raw();
      byte[] key = Arrays.copyOf(raw, raw.length + suffix.length);
      System.arraycopy(suffix, 0, key, raw.length, suffix.length);
      return new LuaScript.Arg(key);
    }

    /**
     * The key of {@code listing}'s index holding its entries (see {@link OrderKeys#index}), encoded
     * once per store (and slot).
     */
    LuaScript.Arg index(String listing) {
      // a slot's listings side by side: one order's scripts read one stretch of the array
      int i = (cluster ? slot * LISTINGS.size() : 0) + LISTINGS.indexOf(listing);
      LuaScript.Arg key = indexKeys.get(i);
      if (key == null) {
        key = LuaScript.Arg.of(cluster ? slotIndex(listing, slot) : nodeIndex(listing));
        indexKeys.set(i, key);
      }
      return key;
    }
  }

  /** The order's hash. */
  String order(String sessionId) {
    return prefix + '{' + tag(sessionId) + '}';
  }

  /** The order's orphans, a stream in the order they were recorded. */
  String orphans(String sessionId) {
    return order(sessionId) + ":orphans";
  }

  /** The identities of the order's orphans, {@code <fence>:<nonce>:<providerOrderId>}, a set. */
  String orphanIds(String sessionId) {
    return order(sessionId) + ":orphan-ids";
  }

  /**
   * The hash tag of a session id: its UTF-8 bytes, percent-encoded outside {@code [A-Za-z0-9._~-]}.
   */
  static String tag(String sessionId) {
    byte[] bytes = sessionId.getBytes(StandardCharsets.UTF_8);
    StringBuilder out = new StringBuilder(bytes.length + 8);
    for (byte b : bytes) {
      int c = b & 0xff;
      if (isPlain(c)) {
        out.append((char) c);
      } else {
        out.append('%').append(HEX.charAt(c >> 4)).append(HEX.charAt(c & 0xf));
      }
    }
    return out.toString();
  }

  /**
   * The session id a tag encodes: the inverse of {@link #tag}.
   *
   * @throws IllegalArgumentException if {@code tag} is not what {@link #tag} writes
   */
  static String sessionIdOf(String tag) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(tag.length());
    for (int i = 0; i < tag.length(); i++) {
      char c = tag.charAt(i);
      if (c == '%'
          && i + 2 < tag.length()
          && HEX.indexOf(tag.charAt(i + 1)) >= 0
          && HEX.indexOf(tag.charAt(i + 2)) >= 0) {
        int b = HEX.indexOf(tag.charAt(i + 1)) << 4 | HEX.indexOf(tag.charAt(i + 2));
        if (isPlain(b)) {
          throw new IllegalArgumentException(
              String.format(
                  "not a tag this store writes, '%s': %%%s encodes a plain character",
                  tag, tag.substring(i + 1, i + 3)));
        }
        bytes.write(b);
        i += 2;
      } else if (c < 0x80 && isPlain(c)) {
        bytes.write(c);
      } else {
        throw new IllegalArgumentException(
            "not a tag this store writes, '" + tag + "': unexpected '" + c + "' at " + i);
      }
    }
    return new String(bytes.toByteArray(), StandardCharsets.UTF_8);
  }

  /** Whether each ASCII character stays as it is in a tag. */
  private static final boolean[] PLAIN = new boolean[128];

  static {
    for (int c = 0; c < PLAIN.length; c++) {
      PLAIN[c] =
          (c >= 'A' && c <= 'Z')
              || (c >= 'a' && c <= 'z')
              || (c >= '0' && c <= '9')
              || "-._~".indexOf(c) >= 0;
    }
  }

  private static boolean isPlain(int c) {
    return c >= 0 && c < PLAIN.length && PLAIN[c];
  }
}
