package org.fencekit.store.redis;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.fencekit.store.ClaimId;
import org.fencekit.store.Item;
import org.fencekit.store.Mismatch;
import org.fencekit.store.MismatchId;
import org.fencekit.store.OrderRecord;
import org.fencekit.store.OrderSnapshot;
import org.fencekit.store.OrderStatus;
import org.fencekit.store.Orphan;

/**
 * Reads an order's hash and its orphans' stream entries back into the API's records. The field
 * names are the ones the scripts write; a field that is absent stands for {@code null}. In layout 3
 * ({@link Layout}) the status says whether the order is claimed: fields {@code fence} and {@code
 * nonce} hold the last claim's token, which is the current claim of a PENDING order and the token
 * that settled a PROVISIONED or FAILED one; a PENDING order claimed again after a settle keeps that
 * settle's token in {@code settledFence} and {@code settledNonce}.
 */
final class HashCodec {

  /**
   * Between the values of field {@code snapshot}: a control character, which none of them holds.
   */
  private static final String SEPARATOR = "\u001f";

  private HashCodec() {}

  /**
   * The order's snapshot as field {@code snapshot} holds it: sessionId, productId, quantity,
   * amountTotal, currency and customerEmail ('' for none: a real one is never blank), U+001F
   * between them (OrderSnapshot admits no control character in any of them). One field instead of
   * six: a Redis hash this small is a list that every HSET and HMGET walks ({@code reindex.lua}
   * packs the older layouts' six fields the same way).
   */
  static String snapshot(OrderSnapshot s) {
    return String.join(
        SEPARATOR,
        s.sessionId(),
        s.productId(),
        Integer.toString(s.quantity()),
        Long.toString(s.amountTotal()),
        s.currency(),
        s.customerEmail() == null ? "" : s.customerEmail());
  }

  /**
   * {@link #snapshot}'s UTF-8 bytes as a script argument, written straight into one array when its
   * texts are ASCII (its numbers are never negative: {@link OrderSnapshot}).
   */
  static LuaScript.Arg snapshotArg(OrderSnapshot s) {
    String email = s.customerEmail() == null ? "" : s.customerEmail();
    if (!ascii(s.sessionId())
        || !ascii(s.productId())
        || !ascii(s.currency())
        || !ascii(email)
        || s.quantity() < 0
        || s.amountTotal() < 0) {
      return LuaScript.Arg.of(snapshot(s));
    }
    byte[] out =
        new byte
            [s.sessionId().length()
                + s.productId().length()
                + LuaScript.Arg.digits(s.quantity())
                + LuaScript.Arg.digits(s.amountTotal())
                + s.currency().length()
                + email.length()
                + 5];
    int at = put(out, 0, s.sessionId());
    out[at++] = SEPARATOR_BYTE;
    at = put(out, at, s.productId());
    out[at++] = SEPARATOR_BYTE;
    at = LuaScript.Arg.put(out, at, s.quantity());
    out[at++] = SEPARATOR_BYTE;
    at = LuaScript.Arg.put(out, at, s.amountTotal());
    out[at++] = SEPARATOR_BYTE;
    at = put(out, at, s.currency());
    out[at++] = SEPARATOR_BYTE;
    put(out, at, email);
    return new LuaScript.Arg(out);
  }

  private static final byte SEPARATOR_BYTE = 0x1f;

  /** Whether {@code text} is ASCII, so that its UTF-8 bytes are its chars. */
  static boolean ascii(String text) {
    for (int i = 0; i < text.length(); i++) {
      if (text.charAt(i) >= 0x80) {
        return false;
      }
    }
    return true;
  }

  /** Writes ASCII {@code text} into {@code out} from {@code at}; returns the index after it. */
  private static int put(byte[] out, int at, String text) {
    for (int i = 0; i < text.length(); i++) {
      out[at + i] = (byte) text.charAt(i);
    }
    return at + text.length();
  }

  /**
   * The order in a flat HGETALL reply ({@code field, value, field, value, ...}).
   *
   * @param key the hash's key, for messages
   * @param sessionId the order the key was derived from; the hash must say the same
   */
  static OrderRecord record(String key, String sessionId, Object hgetall) {
    if (!(hgetall instanceof List)) {
      throw corrupt(
          key, "a script answered " + hgetall + " where the order's fields were expected");
    }
    return record(key, sessionId, fields((List<?>) hgetall));
  }

  /** The fields of a flat reply ({@code field, value, field, value, ...}). */
  static Map<String, String> fields(List<?> flat) {
    Map<String, String> fields = new HashMap<>();
    for (int i = 0; i + 1 < flat.size(); i += 2) {
      fields.put(text(flat.get(i)), text(flat.get(i + 1)));
    }
    return fields;
  }

  /** A snapshot as {@link #snapshot} packs it. */
  private static OrderSnapshot unpack(String what, String text) {
    String[] packed = text.split(SEPARATOR, -1);
    if (packed.length != 6) {
      throw new IllegalArgumentException(what + " holds " + packed.length + " values, not 6");
    }
    return new OrderSnapshot(
        packed[0],
        packed[1],
        Integer.parseInt(packed[2]),
        packed[5].isEmpty() ? null : packed[5],
        Long.parseLong(packed[3]),
        packed[4]);
  }

  /**
   * Between the stored and the offered snapshot of a mismatch as {@code claim.lua} records it in
   * the order's {@code :mismatches} hash (each packed as {@link #snapshot} packs it, without the
   * e-mail).
   */
  private static final String MISMATCH_SEPARATOR = "\u001e";

  /**
   * A mismatch from its index member's parts and the value {@code claim.lua} recorded for it.
   *
   * @param key the order's {@code :mismatches} hash, for messages
   */
  static Mismatch mismatch(String key, MismatchId id, Instant recordedAt, String value) {
    try {
      String[] both = value.split(MISMATCH_SEPARATOR, -1);
      if (both.length != 2) {
        throw new IllegalArgumentException(
            "the mismatch " + id.nonce() + " holds " + both.length + " snapshots, not 2");
      }
      return new Mismatch(
          id, recordedAt, unpack("its stored snapshot", both[0]), unpack("its offered", both[1]));
    } catch (IllegalArgumentException | NullPointerException e) {
      throw corrupt(key, e.getMessage());
    }
  }

  /** The order in an HGETALL map. */
  static OrderRecord record(String key, String sessionId, Map<String, String> h) {
    try {
      OrderSnapshot snapshot = unpack("field 'snapshot'", required(h, "snapshot"));
      if (!snapshot.sessionId().equals(sessionId)) {
        throw corrupt(
            key, "it holds order '" + snapshot.sessionId() + "', not '" + sessionId + "'");
      }
      String itemId = h.get("itemId");
      Item item = itemId == null ? null : new Item(itemId, h.get("itemPayload"));
      OrderStatus status = OrderStatus.valueOf(required(h, "status"));
      long fence = Long.parseLong(required(h, "fence"));
      ClaimId last = new ClaimId(fence, required(h, "nonce")); // the last claim's token
      boolean held = status == OrderStatus.PENDING;
      String settledNonce = h.get("settledNonce");
      ClaimId settledBy =
          !held
              ? last
              : settledNonce == null
                  ? null
                  : new ClaimId(Long.parseLong(required(h, "settledFence")), settledNonce);
      return new OrderRecord(
          snapshot,
          status,
          item,
          h.get("lastError"),
          held ? last : null,
          held ? instant(required(h, "claimedAt")) : null,
          held ? instant(required(h, "leaseExpiresAt")) : null,
          fence,
          settledBy,
          instant(required(h, "updatedAt")),
          h.containsKey("failures") ? Integer.parseInt(h.get("failures")) : 0,
          instant(h.get("failedSince")));
    } catch (IllegalArgumentException | NullPointerException e) {
      throw corrupt(key, e.getMessage());
    }
  }

  /** An orphan from its stream entry's fields. */
  static Orphan orphan(String key, String sessionId, Map<String, String> fields) {
    try {
      return new Orphan(
          sessionId,
          ClaimId.parse(required(fields, "claim")),
          new Item(required(fields, "providerOrderId"), fields.get("payload")),
          instant(required(fields, "recordedAt")));
    } catch (IllegalArgumentException | NullPointerException e) {
      throw corrupt(key, e.getMessage());
    }
  }

  /** A reply element as text: Jedis decodes bulk strings to String, raw ones stay byte[]. */
  static String text(Object value) {
    if (value instanceof byte[] bytes) {
      return new String(bytes, StandardCharsets.UTF_8);
    }
    return value == null ? null : value.toString();
  }

  /** What the writing scripts answer first, as the constants the store compares them with. */
  private static final String[] OUTCOMES = {
    "claimed", "written", "superseded", "provisioned", "inflight", "mismatch", "unknown"
  };

  /**
   * A script's outcome as text: one of {@link #OUTCOMES} without decoding a new String, else {@link
   * #text}.
   */
  static String outcome(Object value) {
    if (value instanceof byte[] bytes) {
      for (String outcome : OUTCOMES) {
        if (outcome.length() == bytes.length && matches(outcome, bytes)) {
          return outcome;
        }
      }
    }
    return text(value);
  }

  private static boolean matches(String ascii, byte[] bytes) {
    for (int i = 0; i < bytes.length; i++) {
      if (ascii.charAt(i) != bytes[i]) {
        return false;
      }
    }
    return true;
  }

  /** A reply as text for a message: bulk strings decoded, lists in brackets. */
  static String show(Object reply) {
    if (reply instanceof List<?> list) {
      StringBuilder out = new StringBuilder("[");
      for (Object element : list) {
        out.append(out.length() > 1 ? ", " : "").append(show(element));
      }
      return out.append(']').toString();
    }
    return String.valueOf(text(reply));
  }

  private static String required(Map<String, String> fields, String name) {
    String value = fields.get(name);
    if (value == null) {
      throw new IllegalArgumentException("field '" + name + "' is missing");
    }
    return value;
  }

  /**
   * A reply element holding epoch milliseconds (a script's time), as {@code Long.parseLong} reads
   * its text, but from a bulk string's bytes without decoding a String.
   *
   * @throws NumberFormatException if it is not a decimal number
   */
  static long epochMillis(Object value) {
    if (value instanceof byte[] bytes) {
      int first = bytes.length > 0 && bytes[0] == '-' ? 1 : 0;
      long millis = 0;
      int i = first;
      for (; i < bytes.length && i - first < 18 && bytes[i] >= '0' && bytes[i] <= '9'; i++) {
        millis = millis * 10 + (bytes[i] - '0');
      }
      if (i == bytes.length && i > first) {
        return first == 1 ? -millis : millis;
      }
    }
    return Long.parseLong(text(value)); // anything else, as it always was read
  }

  private static Instant instant(String epochMillis) {
    return epochMillis == null ? null : Instant.ofEpochMilli(Long.parseLong(epochMillis));
  }

  private static IllegalStateException corrupt(String key, String detail) {
    return new IllegalStateException(
        "redis store: key '"
            + key
            + "' does not hold an order this store wrote: "
            + detail
            + ". Is another application writing under the same key prefix? Give this store a"
            + " prefix of its own (RedisOrderStore.builder().keyPrefix(...)).");
  }
}
