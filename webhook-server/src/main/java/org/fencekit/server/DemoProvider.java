package org.fencekit.server;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Locale;
import org.fencekit.fulfilment.Provider;
import org.fencekit.fulfilment.Purchase;
import org.fencekit.store.Item;

/**
 * The server's default provider: "buys" a fake eSIM whose code is derived from the idempotency key,
 * so every attempt on an order gets the same item back, as a provider honouring idempotency keys
 * would. Replace it with your own {@link Provider} to sell anything real.
 */
public final class DemoProvider implements Provider {

  @Override
  public Item buy(Purchase purchase) {
    String code = digest(purchase.idempotencyKey()).substring(0, 20).toUpperCase(Locale.ROOT);
    return new Item(
        "demo-" + code.substring(0, 12).toLowerCase(Locale.ROOT),
        "LPA:1$smdp.demo.fencekit.invalid$%s (%s x %s)"
            .formatted(code, purchase.quantity(), purchase.productId()));
  }

  private static String digest(String text) {
    try {
      return HexFormat.of()
          .formatHex(
              MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java platform has SHA-256", e);
    }
  }

  @Override
  public String toString() {
    return "DemoProvider (fake eSIM codes)";
  }
}
