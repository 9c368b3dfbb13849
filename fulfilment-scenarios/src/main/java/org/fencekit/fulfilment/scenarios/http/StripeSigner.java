package org.fencekit.fulfilment.scenarios.http;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.HexFormat;
import java.util.Objects;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Signs a webhook body as Stripe does: the header {@code Stripe-Signature: t=<unix seconds>,v1=<hex
 * HMAC-SHA256 of "<t>.<body>" under the endpoint's signing secret>}. The secret never leaves this
 * object: {@link #toString()} does not show it.
 */
final class StripeSigner {

  private final SecretKeySpec key;

  StripeSigner(String secret) {
    Objects.requireNonNull(secret, "secret");
    this.key = new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256");
  }

  /** The {@code Stripe-Signature} header for {@code body} sent at {@code unixSeconds}. */
  String header(long unixSeconds, String body) {
    return "t=" + unixSeconds + ",v1=" + v1(unixSeconds, body);
  }

  /** The hex HMAC-SHA256 of {@code "<t>.<body>"} (UTF-8). */
  String v1(long unixSeconds, String body) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(key);
      byte[] signed = (unixSeconds + "." + body).getBytes(StandardCharsets.UTF_8);
      return HexFormat.of().formatHex(mac.doFinal(signed));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("every Java platform has HmacSHA256", e);
    }
  }

  @Override
  public String toString() {
    return "StripeSigner[secret hidden]";
  }
}
