package org.fencekit.store.spi;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;
import java.util.Base64;
import java.util.function.BiFunction;
import java.util.regex.Pattern;
import org.fencekit.store.ClaimId;
import org.fencekit.store.Mismatch;
import org.fencekit.store.MismatchId;
import org.fencekit.store.OrderStoreAdmin;
import org.fencekit.store.OrphanId;
import org.fencekit.store.OrphanRecord;

/**
 * The opaque cursors of {@link OrderStoreAdmin}'s listings: the sort key of a page's last item and
 * the listing it belongs to, as URL-safe Base64 of fields separated by U+001F (which no id may
 * contain), so a cursor can travel on a command line.
 */
final class Cursors {

  private static final String VERSION = "fk1";
  private static final String SEPARATOR = "\u001f";
  private static final Pattern FIELDS = Pattern.compile(SEPARATOR);
  private static final Base64.Encoder ENCODER = Base64.getUrlEncoder().withoutPadding();
  private static final Base64.Decoder DECODER = Base64.getUrlDecoder();

  private Cursors() {}

  /** The cursor after {@code orphan} in {@code listing}. */
  static String of(String listing, OrphanRecord orphan) {
    OrphanId id = orphan.id();
    return of(
        listing,
        orphan.orphan().recordedAt(),
        id.sessionId(),
        id.claimId().toString(),
        id.providerOrderId());
  }

  /** The cursor after {@code mismatch} in {@code listing}. */
  static String of(String listing, Mismatch mismatch) {
    return of(listing, mismatch.recordedAt(), mismatch.sessionId(), mismatch.id().nonce());
  }

  /** The cursor after the item sorted by {@code at}, then by {@code key}, in {@code listing}. */
  static String of(String listing, Instant at, String... key) {
    String millis = Long.toString(at.toEpochMilli());
    String text = String.join(SEPARATOR, VERSION, listing, millis, String.join(SEPARATOR, key));
    return ENCODER.encodeToString(text.getBytes(StandardCharsets.UTF_8));
  }

  /** The position a cursor of {@code listing} holds, or {@code null} for a null cursor. */
  static AdminQueries.OrphanPosition orphanPosition(String listing, String cursor) {
    return position(
        listing,
        cursor,
        4,
        (at, key) ->
            new AdminQueries.OrphanPosition(
                at, new OrphanId(key[1], ClaimId.parse(key[2]), key[3])));
  }

  /** The position a cursor of {@code listing} holds, or {@code null} for a null cursor. */
  static AdminQueries.MismatchPosition mismatchPosition(String listing, String cursor) {
    return position(
        listing,
        cursor,
        3,
        (at, key) -> new AdminQueries.MismatchPosition(at, new MismatchId(key[1], key[2])));
  }

  /** The position a cursor of {@code listing} holds, or {@code null} for a null cursor. */
  static AdminQueries.OrderPosition orderPosition(String listing, String cursor) {
    return position(listing, cursor, 2, (at, key) -> new AdminQueries.OrderPosition(at, key[1]));
  }

  /**
   * The position {@code read} makes of the cursor's instant (its first key field) and key fields;
   * {@code null} for a null cursor.
   */
  private static <T> T position(
      String listing, String cursor, int keyFields, BiFunction<Instant, String[], T> read) {
    if (cursor == null) {
      return null;
    }
    String[] key = decode(listing, cursor, keyFields);
    try {
      return read.apply(Instant.ofEpochMilli(Long.parseLong(key[0])), key);
    } catch (RuntimeException e) {
      throw malformed(listing, cursor, e);
    }
  }

  /** The key fields of a cursor of {@code listing}. */
  private static String[] decode(String listing, String cursor, int keyFields) {
    String text;
    try {
      text = new String(DECODER.decode(cursor), StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      throw malformed(listing, cursor, e);
    }
    String[] fields = FIELDS.split(text, -1);
    if (fields.length != keyFields + 2 || !fields[0].equals(VERSION)) {
      throw malformed(listing, cursor, null);
    }
    if (!fields[1].equals(listing)) {
      throw new IllegalArgumentException(
          String.format(
              "cursor is a cursor of %s, not of %s; pass null for the first page, then each page's"
                  + " nextCursor to the same listing",
              fields[1], listing));
    }
    return Arrays.copyOfRange(fields, 2, fields.length);
  }

  private static IllegalArgumentException malformed(
      String listing, String cursor, RuntimeException cause) {
    return new IllegalArgumentException(
        "cursor "
            + Validate.quote(cursor)
            + " is not a cursor of "
            + listing
            + "; pass null for the first page, then each page's nextCursor unchanged",
        cause);
  }
}
