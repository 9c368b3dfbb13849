package org.fencekit.store;

import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Objects;
import java.util.random.RandomGenerator;

/**
 * The fencing token an attempt receives when it claims an order, and must present with every write
 * that settles it.
 *
 * <p>{@code fence} counts the claims granted on the order (1 for the first, +1 for each later one),
 * so a newer claim always carries a larger fence. {@code nonce} is 128 random bits: it keeps a
 * token from matching a record that was lost and created again (a Redis restart without
 * persistence, a restored backup), where the fence alone would start over at 1. A write settles
 * only when both parts equal the record's current claim.
 *
 * <p>{@link #toString()} gives {@code "<fence>:<nonce>"}, which {@link #parse} reads back, so a
 * token can travel through a job queue or a log line.
 *
 * @param fence the claim's number on its order, at least 1
 * @param nonce 32 lowercase hexadecimal digits
 */
public record ClaimId(long fence, String nonce) {

  private static final HexFormat HEX = HexFormat.of();

  /** How many nonces' worth of random bytes one draw from the generator fetches. */
  private static final int NONCES_PER_DRAW = 16;

  // One DRBG per thread: the platform default (NativePRNG on Linux) serialises every caller on
  // one global lock, which showed in claims at 16 threads. Each thread draws the bytes of
  // NONCES_PER_DRAW nonces at once: a DRBG's fixed cost per call (its state update, a few SHA-256
  // blocks) was about a tenth of the memory store's claim + complete; the bytes are the same
  // generator's output, each used once.
  private static final ThreadLocal<Draws> SECURE = ThreadLocal.withInitial(Draws::new);

  /** A thread's generator and the bytes of its last draw not handed out yet. */
  private static final class Draws {
    private final SecureRandom random = drbg();
    private final byte[] bytes = new byte[16 * NONCES_PER_DRAW];
    private int next = bytes.length;

    private static SecureRandom drbg() {
      try {
        return SecureRandom.getInstance("DRBG");
      } catch (NoSuchAlgorithmException e) {
        return new SecureRandom();
      }
    }

    String nonce() {
      if (next == bytes.length) {
        random.nextBytes(bytes);
        next = 0;
      }
      String nonce = HEX.formatHex(bytes, next, next + 16);
      Arrays.fill(bytes, next, next + 16, (byte) 0); // handed out once, not kept
      next += 16;
      return nonce;
    }
  }

  /** Validates both parts. */
  public ClaimId {
    if (fence < 1) {
      throw new IllegalArgumentException("claimId fence must be at least 1, got " + fence);
    }
    Objects.requireNonNull(nonce, "claimId nonce");
    if (!isNonce(nonce)) {
      throw new IllegalArgumentException(
          "claimId nonce must be 32 lowercase hex digits (128 bits), got '" + nonce + "'");
    }
  }

  // A plain loop: this runs for every token a store reads or answers, so no stream or regex.
  static boolean isNonce(String nonce) {
    if (nonce.length() != 32) {
      return false;
    }
    for (int i = 0; i < 32; i++) {
      char c = nonce.charAt(i);
      if ((c < '0' || c > '9') && (c < 'a' || c > 'f')) {
        return false;
      }
    }
    return true;
  }

  /** A fresh nonce of 128 bits from a {@link SecureRandom} (a DRBG per thread). */
  public static String newNonce() {
    return SECURE.get().nonce();
  }

  /** A fresh nonce of 128 bits from the given generator (tests may pass a seeded one). */
  public static String newNonce(RandomGenerator random) {
    byte[] bytes = new byte[16];
    random.nextBytes(bytes);
    return HEX.formatHex(bytes);
  }

  /**
   * Reads a token written by {@link #toString()}.
   *
   * @throws IllegalArgumentException if {@code text} is not {@code "<fence>:<nonce>"}
   */
  public static ClaimId parse(String text) {
    Objects.requireNonNull(text, "claimId");
    int colon = text.indexOf(':');
    if (colon < 1) {
      throw new IllegalArgumentException(
          "claimId must look like '<fence>:<nonce>', got '" + text + "'");
    }
    long fence;
    try {
      fence = Long.parseLong(text.substring(0, colon));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("claimId fence is not a number in '" + text + "'", e);
    }
    return new ClaimId(fence, text.substring(colon + 1));
  }

  @Override
  public String toString() {
    return fence + ":" + nonce;
  }
}
