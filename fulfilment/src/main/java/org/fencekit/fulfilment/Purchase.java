package org.fencekit.fulfilment;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Objects;
import java.util.regex.Pattern;
import org.fencekit.store.OrderSnapshot;

/**
 * One provider call: the order to buy for, the idempotency key that is the same for every attempt
 * on that order, and the attempt's ownership.
 *
 * @param snapshot the order as first claimed (session, product, quantity, customer)
 * @param idempotencyKey {@link #idempotencyKeyFor} of the session: pass it to the provider
 * @param ownership whether this attempt still owns the order
 */
public record Purchase(OrderSnapshot snapshot, String idempotencyKey, Ownership ownership) {

  private static final String PREFIX = "fencekit-order-";
  private static final int MAX_KEY_LENGTH = 255;
  private static final Pattern PLAIN = Pattern.compile("[A-Za-z0-9_-]+");

  /** Checks every field is present. */
  public Purchase {
    Objects.requireNonNull(snapshot, "snapshot");
    Objects.requireNonNull(idempotencyKey, "idempotencyKey");
    Objects.requireNonNull(ownership, "ownership");
  }

  /** The Checkout session id, the order's key. */
  public String sessionId() {
    return snapshot.sessionId();
  }

  /** What to buy. */
  public String productId() {
    return snapshot.productId();
  }

  /** How many. */
  public int quantity() {
    return snapshot.quantity();
  }

  /**
   * The idempotency key of an order: {@code fencekit-order-<sessionId>} when the session id is
   * plain ({@code [A-Za-z0-9_-]}, as Stripe's are) and the key fits 255 characters, else {@code
   * fencekit-order-sha256-<64 hex digits>} of the session id's UTF-8 bytes. It depends on the
   * session only, so every attempt on the order, from any process, sends the same key.
   */
  public static String idempotencyKeyFor(String sessionId) {
    Objects.requireNonNull(sessionId, "sessionId");
    if (PREFIX.length() + sessionId.length() <= MAX_KEY_LENGTH && plain(sessionId)) {
      return PREFIX + sessionId;
    }
    try {
      byte[] digest =
          MessageDigest.getInstance("SHA-256").digest(sessionId.getBytes(StandardCharsets.UTF_8));
      return PREFIX + "sha256-" + HexFormat.of().formatHex(digest);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java platform has SHA-256", e);
    }
  }

  private static boolean plain(String text) {
    return PLAIN.matcher(text).matches() && !text.startsWith("sha256-");
  }
}
