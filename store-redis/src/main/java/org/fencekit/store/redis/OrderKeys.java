package org.fencekit.store.redis;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
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

  private final String prefix;
  private final boolean cluster;

  /**
   * Keys under {@code prefix} on a node or a Cluster; {@code prefix} must pass {@link
   * Validate#keyPrefix}.
   *
   * @param cluster whether the keys live on a Redis Cluster: then each slot has index keys of its
   *     own ({@link #index})
   */
  OrderKeys(String prefix, boolean cluster) {
    this.prefix = Validate.keyPrefix("keyPrefix", prefix);
    this.cluster = cluster;
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
    return of(sessionId).index(listing);
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
   * One order's keys, its tag encoded (and on a Cluster its slot hashed) once: what each store call
   * sends.
   */
  Keys of(String sessionId) {
    return new Keys(prefix + '{' + tag(sessionId) + '}');
  }

  /** The keys of one order ({@link #of}). */
  final class Keys {
    private final String hash;
    private final int slot;

    private Keys(String hash) {
      this.hash = hash;
      this.slot = cluster ? JedisClusterCRC16.getSlot(hash) : -1;
    }

    /** The order's hash. */
    String hash() {
      return hash;
    }

    /** The order's tag, the suffix of its index members. */
    String tag() {
      return hash.substring(prefix.length() + 1, hash.length() - 1);
    }

    /** Its orphans' stream. */
    String orphans() {
      return hash + ":orphans";
    }

    /** Its orphans' identities. */
    String orphanIds() {
      return hash + ":orphan-ids";
    }

    /** Its mismatched claims (see {@link OrderKeys#mismatches(String)}). */
    String mismatches() {
      return hash + ":mismatches";
    }

    /** The key of {@code listing}'s index holding its entries (see {@link OrderKeys#index}). */
    String index(String listing) {
      return cluster ? slotIndex(listing, slot) : nodeIndex(listing);
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

  private static boolean isPlain(int c) {
    return (c >= 'A' && c <= 'Z')
        || (c >= 'a' && c <= 'z')
        || (c >= '0' && c <= '9')
        || "-._~".indexOf(c) >= 0;
  }
}
