package org.fencekit.fulfilment.scenarios.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonParser;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import org.fencekit.testsupport.LoopbackPorts;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The runner's own checks, each failing a small endpoint written wrong on purpose (no signature
 * check, no store: only what the check needs): one that stops Stripe without buying, one that never
 * stops it, one that buys for an unpaid session.
 */
@Timeout(60)
class RunnerCatchesWrongJavaEndpointsTest {

  private static final String SECRET = "whsec_test_wrong_java";

  @TempDir Path dir;

  private enum Mistake {
    /** 200 for everything, buys nothing. */
    ALWAYS_OK,
    /** 503 for everything, buys nothing: Stripe never stops. */
    ALWAYS_RETRY,
    /** Buys on every event, paid or not, then 200. */
    BUYS_UNPAID
  }

  private Captured against(Mistake mistake, String scenario) throws IOException {
    int providerPort = LoopbackPorts.closed();
    HttpClient client = HttpClient.newHttpClient();
    JavaEndpoint.Handler handler =
        body -> {
          if (mistake == Mistake.ALWAYS_RETRY) {
            return 503;
          }
          if (mistake == Mistake.BUYS_UNPAID && body.contains("\"data\"")) {
            String order =
                JsonParser.parseString(body)
                    .getAsJsonObject()
                    .getAsJsonObject("data")
                    .getAsJsonObject("object")
                    .get("id")
                    .getAsString();
            client.send(
                HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + providerPort + "/purchases"))
                    .header("Idempotency-Key", "k-" + order)
                    .POST(
                        HttpRequest.BodyPublishers.ofString(
                            "{\"order\":\""
                                + order
                                + "\",\"product\":\"esim-eu-5gb\",\"quantity\":1}"))
                    .build(),
                HttpResponse.BodyHandlers.discarding());
          }
          return 200;
        };
    try (JavaEndpoint endpoint = new JavaEndpoint(handler)) {
      return Captured.run(
          "--endpoint",
          endpoint.url(),
          "--secret",
          SECRET,
          "--provider-port",
          String.valueOf(providerPort),
          "--lease",
          "500ms",
          "--replay-dir",
          dir.toString(),
          "--scenario",
          scenario);
    }
  }

  @Test
  void aPaidOrderAnswered2xxWithNothingBoughtFails() throws IOException {
    Captured run = against(Mistake.ALWAYS_OK, "s08");
    assertEquals(BlackBoxRunner.FAILED, run.exit(), run.toString());
    assertTrue(run.out().contains("bought 0 time(s)"), run.out());
    assertTrue(run.out().contains("this customer paid and gets nothing"), run.out());
  }

  @Test
  void anEndpointThatNeverAnswers2xxFailsWhenStripeGivesUp() throws IOException {
    Captured run = against(Mistake.ALWAYS_RETRY, "s10");
    assertEquals(BlackBoxRunner.FAILED, run.exit(), run.toString());
    assertTrue(
        run.out().contains("was never answered 2xx: Stripe gave up after 8 retries"), run.out());
  }

  @Test
  void buyingForAnUnpaidSessionFails() throws IOException {
    Captured run = against(Mistake.BUYS_UNPAID, "s07");
    assertEquals(BlackBoxRunner.FAILED, run.exit(), run.toString());
    assertTrue(
        run.out().contains("which no paid event signed by Stripe was delivered for"), run.out());
  }
}
