package org.fencekit.store.etcd;

import io.etcd.jetcd.ByteSequence;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import org.fencekit.store.ClaimId;
import org.fencekit.store.Mismatch;
import org.fencekit.store.MismatchId;
import org.fencekit.store.OrderRecord;
import org.fencekit.store.OrderStatus;
import org.fencekit.store.Orphan;
import org.fencekit.store.OrphanId;
import org.fencekit.store.spi.Validate;

/**
 * The store's key layout under its prefix {@code P}:
 *
 * <ul>
 *   <li>{@code P order/<sessionId>}: the order;
 *   <li>{@code P orphan/<sessionId> US <fence> US <nonce> US <providerOrderId>}: one orphan;
 *   <li>{@code P claims/<leaseExpiresAt>/<sessionId>}: an order holding a claim, by its lease's
 *       end;
 *   <li>{@code P failed/<failedSince>/<sessionId>}: a FAILED order, by its first failure;
 *   <li>{@code P unreconciled/<recordedAt>/<orphan's key after orphan/>}: an unreconciled orphan;
 *   <li>{@code P mismatch/<sessionId> US <nonce>}: a mismatched claim, by its identity;
 *   <li>{@code P mismatches/<recordedAt>/<sessionId> US <nonce>}: the same, in listing order.
 * </ul>
 *
 * US is U+001F, which no id may hold (ids have no control characters), so a session id is never a
 * prefix of another's keys. An instant is 16 hexadecimal digits of its epoch milliseconds with the
 * sign bit flipped and a fence 19 decimal digits, so the byte order of the keys, which a range read
 * follows, is the listings' order: a listing is one range read from a position.
 */
final class EtcdKeys {

  /** Between the parts of an orphan's identity. */
  private static final char US = '\u001f';

  /** The smallest byte: appended to a key, it makes the first key after it. */
  private static final char NUL = '\u0000';

  private final String prefix;

  /**
   * @param prefix 1 to 64 of letters, digits, {@code _ : . -} ({@link Validate#keyPrefix})
   */
  EtcdKeys(String prefix) {
    this.prefix = Validate.keyPrefix("keyPrefix", prefix);
  }

  /** The prefix every key starts with. */
  String prefix() {
    return prefix;
  }

  ByteSequence order(String sessionId) {
    return bytes(prefix + "order/" + sessionId);
  }

  ByteSequence orphan(OrphanId id) {
    return bytes(prefix + "orphan/" + orphanPart(id));
  }

  /** The first key of an order's orphans, and the key after its last. */
  ByteSequence[] orphansOf(String sessionId) {
    String start = prefix + "orphan/" + sessionId + US;
    return new ByteSequence[] {bytes(start), bytes(after(start))};
  }

  /** The claims index key of {@code record}, or {@code null} if it holds no claim. */
  ByteSequence claim(OrderRecord record) {
    return record == null || record.claimId() == null
        ? null
        : bytes(prefix + "claims/" + instant(record.leaseExpiresAt()) + "/" + record.sessionId());
  }

  /** The failed index key of {@code record}, or {@code null} if it is not FAILED. */
  ByteSequence failure(OrderRecord record) {
    return record == null || record.status() != OrderStatus.FAILED
        ? null
        : bytes(prefix + "failed/" + instant(record.failedSince()) + "/" + record.sessionId());
  }

  ByteSequence unreconciled(Orphan orphan) {
    return bytes(
        prefix
            + "unreconciled/"
            + instant(orphan.recordedAt())
            + "/"
            + orphanPart(OrphanId.of(orphan)));
  }

  ByteSequence mismatch(MismatchId id) {
    return bytes(prefix + "mismatch/" + id.sessionId() + US + id.nonce());
  }

  /** A mismatch's key in the listing's index. */
  ByteSequence mismatchListed(Mismatch mismatch) {
    MismatchId id = mismatch.id();
    return bytes(
        prefix
            + "mismatches/"
            + instant(mismatch.recordedAt())
            + "/"
            + id.sessionId()
            + US
            + id.nonce());
  }

  /** The first key of the mismatches index strictly after the position, or its start. */
  ByteSequence mismatchesFrom(Instant recordedAt, MismatchId id) {
    String base = prefix + "mismatches/";
    return bytes(
        id == null
            ? base
            : base + instant(recordedAt) + "/" + id.sessionId() + US + id.nonce() + NUL);
  }

  /** The first key of an order index ("claims" or "failed") strictly after the position. */
  ByteSequence indexFrom(String index, Instant at, String sessionId) {
    String base = prefix + index + "/";
    return bytes(at == null ? base : base + instant(at) + "/" + sessionId + NUL);
  }

  /** The first key of the claims index whose lease ends after {@code at}. */
  ByteSequence claimsAfter(Instant at) {
    return bytes(prefix + "claims/" + instant(at.plusMillis(1)));
  }

  /** The key after the last of an index ("claims", "failed", "unreconciled"). */
  ByteSequence indexEnd(String index) {
    return bytes(after(prefix + index + "/"));
  }

  /** The first key of the unreconciled index strictly after the orphan, or its start. */
  ByteSequence unreconciledFrom(Instant recordedAt, OrphanId id) {
    String base = prefix + "unreconciled/";
    return bytes(id == null ? base : base + instant(recordedAt) + "/" + orphanPart(id) + NUL);
  }

  private static String orphanPart(OrphanId id) {
    ClaimId claim = id.claimId();
    return id.sessionId()
        + US
        + String.format("%019d", claim.fence())
        + US
        + claim.nonce()
        + US
        + id.providerOrderId();
  }

  /** The instant's epoch milliseconds, sign bit flipped, as 16 hex digits: sorts as it should. */
  static String instant(Instant at) {
    return String.format("%016x", at.toEpochMilli() ^ Long.MIN_VALUE);
  }

  /** The first string after every string starting with {@code start} (its last char + 1). */
  private static String after(String start) {
    char last = start.charAt(start.length() - 1);
    return start.substring(0, start.length() - 1) + (char) (last + 1);
  }

  static ByteSequence bytes(String key) {
    return ByteSequence.from(key, StandardCharsets.UTF_8);
  }
}
