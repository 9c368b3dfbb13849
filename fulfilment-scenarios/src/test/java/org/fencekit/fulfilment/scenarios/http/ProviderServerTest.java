package org.fencekit.fulfilment.scenarios.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.BindException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The fake provider over HTTP: each steering, the records, the purchase count, bad requests. */
@Timeout(30)
class ProviderServerTest {

  private static final Duration PATIENCE = Duration.ofSeconds(10);

  private final HttpClient client = HttpClient.newHttpClient();
  private final List<String> heard = new CopyOnWriteArrayList<>();
  private ProviderServer provider;

  @BeforeEach
  void start() throws IOException {
    provider = ProviderServer.start(0, Set.of()); // no endpoint to keep clear of
  }

  @AfterEach
  void stop() {
    provider.close();
  }

  private void plan(String order, boolean honourKeys, Steer... script) {
    provider.plan(
        order,
        honourKeys,
        List.of(script),
        new ProviderServer.Listener() {
          @Override
          public void arrived(ProviderServer.Call call) {
            heard.add("arrived #" + call.number);
          }

          @Override
          public void bought(ProviderServer.Call call) {
            heard.add("bought #" + call.number);
          }

          @Override
          public void finished(ProviderServer.Call call) {
            heard.add("finished #" + call.number + ": " + call.what());
          }
        });
  }

  private CompletableFuture<HttpResponse<String>> buy(String order, String key) {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(provider.baseUrl() + "/purchases"))
            .header("Content-Type", "application/json")
            .POST(
                HttpRequest.BodyPublishers.ofString(
                    "{\"order\":\"" + order + "\",\"product\":\"p\",\"quantity\":2}"));
    if (key != null) {
      request.header("Idempotency-Key", key);
    }
    return client.sendAsync(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void succeedBuysOnceAndAKnownKeyGetsTheSameItemWithoutANewPurchase() throws Exception {
    plan("o1", true);
    HttpResponse<String> first = buy("o1", "k1").get();
    HttpResponse<String> again = buy("o1", "k1").get();
    assertEquals(200, first.statusCode());
    assertTrue(first.body().contains("\"item_id\":\"item_"), first.body());
    assertEquals(first.body(), again.body());
    assertEquals("true", again.headers().firstValue("Idempotent-Replayed").orElse(null));
    assertFalse(first.headers().firstValue("Idempotent-Replayed").isPresent());
    assertEquals(1, provider.purchases("o1"));
    ProviderServer.Call call = provider.calls("o1").get(1);
    assertEquals(2, call.number);
    assertEquals("k1", call.key);
    assertEquals("p", call.product);
    assertEquals(2, call.quantity);
    assertFalse(call.bought());
    assertTrue(call.what().startsWith("replayed item_"), call.what());
    long deadline = System.nanoTime() + PATIENCE.toNanos();
    while (heard.size() < 5 && System.nanoTime() < deadline) {
      Thread.sleep(10); // "finished" is told after the answer is sent
    }
    assertTrue(heard.contains("bought #1"), heard.toString());
    assertFalse(heard.contains("bought #2"), "the replay is no purchase: " + heard);
    assertTrue(
        heard.contains("finished #2: replayed " + call.what().substring(9)), heard.toString());
    assertEquals(5, heard.size(), heard.toString());
  }

  @Test
  void withKeysIgnoredOrNoKeyEveryCallIsANewPurchase() throws Exception {
    plan("ignored", false);
    buy("ignored", "k").get();
    buy("ignored", "k").get();
    assertEquals(2, provider.purchases("ignored"));
    plan("nokey", true);
    buy("nokey", null).get();
    buy("nokey", null).get();
    assertEquals(2, provider.purchases("nokey"));
    assertNull(provider.calls("nokey").get(0).key);
  }

  @Test
  void refuseAnswers402AndBuysNothing() throws Exception {
    plan("o", true, Steer.REFUSE);
    HttpResponse<String> refused = buy("o", "k").get();
    assertEquals(402, refused.statusCode());
    assertTrue(refused.body().contains("\"bought\":false"), refused.body());
    assertEquals(0, provider.purchases("o"));
    assertEquals(200, buy("o", "k").get().statusCode(), "then it succeeds");
  }

  @Test
  void serverErrorAfterBuyingAnswers503WithTheOutcomeUnknown() throws Exception {
    plan("o", true, Steer.SERVER_ERROR_AFTER_BUYING);
    HttpResponse<String> failed = buy("o", "k").get();
    assertEquals(503, failed.statusCode());
    assertTrue(failed.body().contains("\"bought\":\"unknown\""), failed.body());
    assertEquals(1, provider.purchases("o"));
    buy("o", "k").get();
    assertEquals(1, provider.purchases("o"), "the same key again is no new purchase");
  }

  @Test
  void dropAfterBuyingClosesTheConnectionWithoutAnAnswer() {
    plan("o", true, Steer.DROP_AFTER_BUYING);
    Exception dropped = assertThrows(Exception.class, () -> buy("o", "k").get());
    assertTrue(dropped.getCause() instanceof IOException, dropped.toString());
    assertEquals(1, provider.purchases("o"));
  }

  @Test
  void hangHoldsTheCallUntilReleasedThenDoesWhatTheReleaseSays() throws Exception {
    plan("o", true, Steer.HANG, Steer.HANG);
    CompletableFuture<HttpResponse<String>> hung = buy("o", "k");
    ProviderServer.Call call = provider.awaitCall("o", 1, PATIENCE);
    Thread.sleep(200); // a call that did not hang would have answered by now
    assertFalse(hung.isDone());
    assertEquals(0, provider.purchases("o"));
    provider.release(call, Steer.REFUSE);
    assertEquals(402, hung.get().statusCode());
    assertEquals(0, provider.purchases("o"));
    CompletableFuture<HttpResponse<String>> second = buy("o", "k");
    provider.release(provider.awaitCall("o", 2, PATIENCE), Steer.SUCCEED);
    assertEquals(200, second.get().statusCode());
    assertEquals(1, provider.purchases("o"));
    assertTrue(provider.calls("o").get(1).what().startsWith("hung, then bought"));
  }

  @Test
  void buyThenHangBuysAtOnceAndHoldsTheAnswer() throws Exception {
    plan("o", true, Steer.BUY_THEN_HANG);
    CompletableFuture<HttpResponse<String>> held = buy("o", "k");
    ProviderServer.Call call = provider.awaitCall("o", 1, PATIENCE);
    long deadline = System.nanoTime() + PATIENCE.toNanos();
    while (provider.purchases("o") == 0 && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }
    assertEquals(1, provider.purchases("o"));
    assertFalse(held.isDone());
    provider.release(call, Steer.SUCCEED);
    assertEquals(200, held.get().statusCode());
  }

  @Test
  void closingRefusesEveryHangingCall() throws Exception {
    plan("o", true, Steer.HANG);
    CompletableFuture<HttpResponse<String>> hung = buy("o", "k");
    provider.awaitCall("o", 1, PATIENCE);
    provider.close();
    assertEquals(402, hung.get().statusCode());
  }

  @Test
  void aMalformedRequestIs400AndBuysNothing() throws Exception {
    for (String body : new String[] {"{}", "not json", "[1]", "{\"order\":\"\"}"}) {
      HttpResponse<String> answer =
          client.send(
              HttpRequest.newBuilder(URI.create(provider.baseUrl() + "/purchases"))
                  .POST(HttpRequest.BodyPublishers.ofString(body))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertEquals(400, answer.statusCode(), body);
      assertTrue(answer.body().contains("\"bought\":false"), answer.body());
    }
    HttpResponse<String> elsewhere =
        client.send(
            HttpRequest.newBuilder(URI.create(provider.baseUrl() + "/other")).build(),
            HttpResponse.BodyHandlers.ofString());
    assertEquals(404, elsewhere.statusCode());
  }

  @Test
  void aTakenPortIsABindException() {
    assertThrows(BindException.class, () -> ProviderServer.start(provider.port(), Set.of()));
  }
}
