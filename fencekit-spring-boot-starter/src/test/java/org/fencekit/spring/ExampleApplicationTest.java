package org.fencekit.spring;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import org.fencekit.fulfilment.CheckoutEvent;
import org.fencekit.fulfilment.PaymentStatus;
import org.fencekit.server.StripeDeliveries;
import org.fencekit.spring.example.ExampleApplication;
import org.fencekit.store.OrderSnapshot;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The example application a user copies ({@code application.properties} and one Provider bean), run
 * as it is: the store file and the Stripe API are the test's, the rest is the example's.
 */
@SpringBootTest(
    classes = ExampleApplication.class,
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@DirtiesContext
class ExampleApplicationTest {

  @LocalServerPort int port;

  @DynamicPropertySource
  static void properties(DynamicPropertyRegistry properties) throws IOException {
    Path directory = Files.createTempDirectory("fencekit-example");
    properties.add("fencekit.store", () -> "sqlite:" + directory.resolve("orders.db"));
    StarterContract.stripe(properties);
    properties.add(
        "spring.autoconfigure.exclude", () -> StarterContract.DATA_SOURCE_AUTO_CONFIGURATION);
  }

  @Test
  void theExampleFulfilsASignedCheckoutEventAndServesTheSuccessPage() {
    String sessionId = "cs_test_example" + Long.toHexString(System.nanoTime());
    OrderSnapshot order =
        new OrderSnapshot(sessionId, "esim-eu-5gb", 2, "buyer@example.com", 3000, "eur");
    StarterContract.STRIPE.session(order, "paid");
    StripeDeliveries deliveries = new StripeDeliveries(port, Clock.systemUTC());
    var answer =
        deliveries.deliver(
            "/stripe/webhook", CheckoutEvent.completed("evt_example", PaymentStatus.PAID, order));
    assertEquals(200, answer.statusCode(), answer.body());
    assertEquals("fulfilled", StarterContract.json(answer).get("outcome").getAsString());
    var page =
        deliveries.send(deliveries.request("/checkout/success?session_id=" + sessionId).build());
    assertEquals(200, page.statusCode(), page.body());
    var shown = StarterContract.json(page);
    assertEquals("fulfilled", shown.get("state").getAsString(), page.body());
    assertEquals("2 x esim-eu-5gb", shown.getAsJsonObject("item").get("payload").getAsString());
  }
}
