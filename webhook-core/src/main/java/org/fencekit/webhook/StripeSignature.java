package org.fencekit.webhook;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Checks a {@code Stripe-Signature} header as Stripe signs it: {@code t=<seconds>,v1=<hex
 * HMAC-SHA256 of "t." + the body's bytes>}, any number of {@code v1} (one per secret while Stripe
 * rotates), other schemes ignored.
 *
 * <ol>
 *   <li>the header must hold exactly one {@code t} of 1 to 12 ASCII digits and at least one {@code
 *       v1}, else {@code bad_signature};
 *   <li>some {@code v1} must equal the HMAC of one configured secret (compared in constant time),
 *       else {@code bad_signature};
 *   <li>{@code t} must lie within the tolerance of the server's clock on either side, else {@code
 *       stale_signature} (Stripe's libraries check only the past: a signature dated ahead would
 *       stay good for as long as it is dated ahead).
 * </ol>
 *
 * Nothing the header or the body holds is echoed in a refusal. This is the one place that reads the
 * signing secrets ({@link #secrets}) and checks a delivery against them.
 */
public final class StripeSignature {

  /** A refusal: the error and a reason that quotes nothing from the request. */
  record Refusal(String error, String reason) {}

  private static final Pattern SECONDS = Pattern.compile("[0-9]{1,12}");

  private final List<SecretKeySpec> secrets;
  private final long toleranceSeconds;
  private final String secretSetting;

  /**
   * @param secretSetting the setting the secrets come from, named when none is given or none
   *     matches
   * @param secrets the secrets, as {@link #secrets} takes them
   * @param tolerance how far a signature's timestamp may lie from the clock
   */
  StripeSignature(String secretSetting, Collection<String> secrets, Duration tolerance) {
    this.secretSetting = Objects.requireNonNull(secretSetting, "secretSetting");
    this.secrets =
        secrets(secretSetting, secrets).stream()
            .map(secret -> new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"))
            .toList();
    this.toleranceSeconds = SettingChecks.positive("tolerance", tolerance).toSeconds();
  }

  /**
   * The webhook signing secrets a setting gives: each trimmed, blank ones dropped (a trailing
   * comma, an empty variable), at least one required. Several are accepted while Stripe rotates the
   * endpoint's secret.
   *
   * @param setting the setting's name, for the message
   * @param values the setting's values, {@code null} if unset
   * @throws IllegalArgumentException naming the setting if it holds no secret
   */
  public static List<String> secrets(String setting, Collection<String> values) {
    List<String> secrets =
        values == null
            ? List.of()
            : values.stream()
                .filter(Objects::nonNull)
                .map(String::trim)
                .filter(s -> !s.isEmpty())
                .toList();
    if (secrets.isEmpty()) {
      throw new IllegalArgumentException(
          setting
              + " is not set: the webhook refuses to start without the endpoint's signing secret"
              + " (whsec_..., shown in the Stripe dashboard or printed by `stripe listen`), since"
              + " anyone could otherwise post fake payments");
    }
    return secrets;
  }

  /**
   * Why the delivery is refused, or {@code null} if it is signed with a configured secret within
   * the tolerance.
   */
  Refusal check(String header, byte[] body, long nowSeconds) {
    String timestamp = null;
    List<byte[]> v1 = new ArrayList<>();
    for (String item : header.split(",", -1)) {
      int equals = item.indexOf('=');
      if (equals < 0) {
        continue;
      }
      String key = item.substring(0, equals);
      String value = item.substring(equals + 1);
      if (key.equals("t")) {
        if (timestamp != null) {
          return bad("it holds more than one t=");
        }
        timestamp = value;
      } else if (key.equals("v1")) {
        v1.add(value.getBytes(StandardCharsets.ISO_8859_1));
      }
    }
    if (timestamp == null || !SECONDS.matcher(timestamp).matches()) {
      return bad("it holds no t=<seconds since the epoch> (1 to 12 digits)");
    }
    if (v1.isEmpty()) {
      return bad("it holds no v1= signature");
    }
    if (!matches(timestamp, body, v1)) {
      return new Refusal(
          "bad_signature",
          "the Stripe-Signature does not match the body for any configured secret: only Stripe"
              + " may post here (if it is Stripe, "
              + secretSetting
              + " is not this endpoint's signing secret)");
    }
    long offset = nowSeconds - Long.parseLong(timestamp);
    if (Math.abs(offset) > toleranceSeconds) {
      return new Refusal(
          "stale_signature",
          ("the signature's timestamp is %s s %s the server's clock; at most %s s either side (a"
                  + " replayed or delayed delivery, or a clock out of step)")
              .formatted(Math.abs(offset), offset > 0 ? "behind" : "ahead of", toleranceSeconds));
    }
    return null;
  }

  private boolean matches(String timestamp, byte[] body, List<byte[]> signatures) {
    for (SecretKeySpec secret : secrets) {
      byte[] expected =
          HexFormat.of()
              .formatHex(hmac(secret, timestamp, body))
              .getBytes(StandardCharsets.US_ASCII);
      for (byte[] signature : signatures) {
        if (MessageDigest.isEqual(expected, signature)) {
          return true;
        }
      }
    }
    return false;
  }

  private static byte[] hmac(SecretKeySpec secret, String timestamp, byte[] body) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(secret);
      mac.update((timestamp + ".").getBytes(StandardCharsets.US_ASCII));
      return mac.doFinal(body);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("every Java platform has HmacSHA256", e);
    }
  }

  private static Refusal bad(String what) {
    return new Refusal(
        "bad_signature", "the Stripe-Signature header is not t=<seconds>,v1=<signature>: " + what);
  }
}
