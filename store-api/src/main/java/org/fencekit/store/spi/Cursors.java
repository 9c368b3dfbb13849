package org.fencekit.store.spi;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Base64;
import java.util.regex.Pattern;
import org.fencekit.store.ClaimId;
import org.fencekit.store.OrderStoreAdmin;
import org.fencekit.store.OrphanId;

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
  static String of(String listing, AdminQueries.OrphanPosition after) {
    OrphanId id = after.id();
    return encode(
        listing,
        Long.toString(after.recordedAt().toEpochMilli()),
        id.sessionId(),
        id.claimId().toString(),
        id.providerOrderId());
  }

  /** The cursor after {@code order} in {@code listing}. */
  static String of(String listing, AdminQueries.OrderPosition after) {
    return encode(listing, Long.toString(after.at().toEpochMilli()), after.sessionId());
  }

  /** The position a cursor of {@code listing} holds, or {@code null} for a null cursor. */
  static AdminQueries.OrphanPosition orphanPosition(String listing, String cursor) {
    String[] fields = decode(listing, cursor, 4);
    if (fields == null) {
      return null;
    }
    try {
      return new AdminQueries.OrphanPosition(
          Instant.ofEpochMilli(Long.parseLong(fields[0])),
          new OrphanId(fields[1], ClaimId.parse(fields[2]), fields[3]));
    } catch (RuntimeException e) {
      throw malformed(listing, cursor, e);
    }
  }

  /** The position a cursor of {@code listing} holds, or {@code null} for a null cursor. */
  static AdminQueries.OrderPosition orderPosition(String listing, String cursor) {
    String[] fields = decode(listing, cursor, 2);
    if (fields == null) {
      return null;
    }
    try {
      return new AdminQueries.OrderPosition(
          Instant.ofEpochMilli(Long.parseLong(fields[0])), fields[1]);
    } catch (RuntimeException e) {
      throw malformed(listing, cursor, e);
    }
  }

  private static String encode(String listing, String... key) {
    String text = VERSION + SEPARATOR + listing + SEPARATOR + String.join(SEPARATOR, key);
    return ENCODER.encodeToString(text.getBytes(StandardCharsets.UTF_8));
  }

  /** The key fields of a cursor of {@code listing}, or {@code null} for a null cursor. */
  private static String[] decode(String listing, String cursor, int keyFields) {
    if (cursor == null) {
      return null;
    }
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
          "cursor is a cursor of "
              + fields[1]
              + ", not of "
              + listing
              + "; pass null for the first page, then each page's nextCursor to the same listing");
    }
    String[] key = new String[keyFields];
    System.arraycopy(fields, 2, key, 0, keyFields);
    return key;
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
