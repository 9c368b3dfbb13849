package org.fencekit.fulfilment.scenarios.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.fencekit.fulfilment.scenarios.http.StripeEvent.Goods;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The runner signs as Stripe does, and posts Stripe's event and Checkout session shapes. */
class StripeSignerTest {

  private static final String SECRET = "whsec_test_5ecret";
  private static final String BODY = "{\"id\":\"evt_1\",\"amount\":\"€15\"}";

  /**
   * Computed independently with Python: {@code hmac.new(b"whsec_test_5ecret", b"1700000000." +
   * body.encode(), hashlib.sha256).hexdigest()}.
   */
  private static final String V1 =
      "6c64cf609df1b8725d469fe8b5c5d3420f56fcd2d650ffdf9188d80c8cc3649f";

  @Test
  void signsTheTimestampDotBodyWithHmacSha256AsStripeDoes() {
    StripeSigner signer = new StripeSigner(SECRET);
    assertEquals("t=1700000000,v1=" + V1, signer.header(1_700_000_000L, BODY));
    assertNotEquals(V1, signer.v1(1_700_000_001L, BODY), "the timestamp is signed");
    assertNotEquals(V1, new StripeSigner(SECRET + "x").v1(1_700_000_000L, BODY));
    assertFalse(signer.toString().contains(SECRET), signer.toString());
  }

  @Test
  void pythonsHmacAgreesOnARealEvent(@TempDir Path dir) throws Exception {
    PythonEndpoint.requirePython();
    StripeEvent event =
        StripeEvent.of(
            "evt_x", StripeEvent.COMPLETED, "cs_test_x", "paid", Goods.ONE, 1_700_000_000L);
    Path body = dir.resolve("body.json");
    Files.writeString(body, event.body(), StandardCharsets.UTF_8);
    Process python =
        new ProcessBuilder(
                "python3",
                "-c",
                "import hmac,hashlib,sys;"
                    + "print(hmac.new(sys.argv[1].encode(),b'1700000000.'+open(sys.argv[2],'rb')"
                    + ".read(),hashlib.sha256).hexdigest())",
                SECRET,
                body.toString())
            .redirectErrorStream(true)
            .start();
    String out = new String(python.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
    assertEquals(0, python.waitFor());
    assertEquals(new StripeSigner(SECRET).v1(1_700_000_000L, event.body()), out);
  }

  @Test
  void eventsHaveStripesShapes() {
    StripeEvent free =
        StripeEvent.of(
            "evt_1",
            StripeEvent.COMPLETED,
            "cs_test_1",
            "no_payment_required",
            new Goods("esim-world-10gb", 3, 8997),
            1_700_000_000L);
    JsonObject json = JsonParser.parseString(free.body()).getAsJsonObject();
    assertEquals("event", json.get("object").getAsString());
    assertEquals("checkout.session.completed", json.get("type").getAsString());
    assertFalse(json.get("livemode").getAsBoolean());
    JsonObject session = json.getAsJsonObject("data").getAsJsonObject("object");
    assertEquals("cs_test_1", session.get("id").getAsString());
    assertEquals("checkout.session", session.get("object").getAsString());
    assertEquals("no_payment_required", session.get("payment_status").getAsString());
    assertEquals("complete", session.get("status").getAsString());
    assertEquals("payment", session.get("mode").getAsString());
    assertEquals(0, session.get("amount_total").getAsLong());
    assertEquals(8997, session.get("amount_subtotal").getAsLong());
    assertEquals(8997, session.getAsJsonObject("total_details").get("amount_discount").getAsLong());
    assertEquals(
        "esim-world-10gb", session.getAsJsonObject("metadata").get("product_id").getAsString());
    assertEquals("3", session.getAsJsonObject("metadata").get("quantity").getAsString());
    assertEquals(
        "buyer@example.com",
        session.getAsJsonObject("customer_details").get("email").getAsString());
    assertEquals(true, free.paying());
    assertFalse(
        StripeEvent.of("evt_2", StripeEvent.COMPLETED, "cs_test_1", "unpaid", Goods.ONE, 1L)
            .paying());
    assertFalse(
        StripeEvent.of("evt_3", StripeEvent.ASYNC_FAILED, "cs_test_1", "unpaid", Goods.ONE, 1L)
            .paying());
  }
}
