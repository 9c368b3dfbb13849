package org.fencekit.spring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.fencekit.fulfilment.CheckoutEvent;
import org.fencekit.fulfilment.PaymentStatus;
import org.fencekit.fulfilment.Provider;
import org.fencekit.server.StripeDeliveries;
import org.fencekit.store.Item;
import org.fencekit.store.OrderSnapshot;
import org.fencekit.store.OrderStore;
import org.fencekit.store.memory.MemoryOrderStore;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

/**
 * The application shuts down while a delivery is in flight (its provider call running): that
 * delivery gets its whole answer, and one that arrives meanwhile is answered 503 {@code
 * shutting_down} with Retry-After (Stripe retries it), whether the web server shuts down gracefully
 * (Boot's default) or at once. The webhook drains in a lifecycle phase before the web server's; a
 * drain in bean destruction came after the web server had stopped taking requests.
 */
class ShutdownTest {

  private static final Duration BOUND = Duration.ofSeconds(20);

  /** How long the drain may take to start after the close: less than {@link #BOUND}. */
  private static final Duration DRAIN_STARTS = Duration.ofSeconds(15);

  /** A provider that waits for the test before it buys. */
  static final class GatedProvider implements Provider {
    final CountDownLatch entered = new CountDownLatch(1);
    final CountDownLatch release = new CountDownLatch(1);

    @Override
    public Item buy(org.fencekit.fulfilment.Purchase purchase) throws InterruptedException {
      entered.countDown();
      if (!release.await(BOUND.toSeconds(), TimeUnit.SECONDS)) {
        throw new IllegalStateException("the test never released the provider");
      }
      return new Item("prov-1", "LPA:1$test$1");
    }
  }

  /** An application with the starter, a memory store and the gated provider. */
  @SpringBootConfiguration
  @EnableAutoConfiguration
  static class App {
    @Bean
    GatedProvider provider() {
      return new GatedProvider();
    }

    @Bean
    OrderStore store() {
      return new MemoryOrderStore(Clock.systemUTC());
    }

    /**
     * Holds back the writing of each delivery's answer (the async dispatch that writes it) for a
     * moment: the window in which a drain that waited only for the answer let the web server stop
     * and cut the connection (seen on a loaded machine), made wide enough to hit every run.
     */
    @Bean
    FilterRegistrationBean<Filter> slowWriting() {
      Filter filter =
          (request, response, chain) -> {
            if (request.getDispatcherType() == DispatcherType.ASYNC) {
              try {
                Thread.sleep(WRITING_DELAY.toMillis()); // widens a race window; no lease is timed
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            }
            chain.doFilter(request, response);
          };
      FilterRegistrationBean<Filter> registration = new FilterRegistrationBean<>(filter);
      registration.setDispatcherTypes(DispatcherType.ASYNC);
      return registration;
    }
  }

  /** How long the test holds back the writing of an answer. */
  private static final Duration WRITING_DELAY = Duration.ofMillis(500);

  @ParameterizedTest(name = "server.shutdown={0}")
  @ValueSource(strings = {"graceful", "immediate"})
  void aDeliveryInFlightGetsItsWholeAnswerAndANewOneIsAnswered503(String shutdown)
      throws Exception {
    ConfigurableApplicationContext context =
        new SpringApplicationBuilder(App.class)
            .run(
                // arguments, over this module's application.properties
                "--server.port=0",
                "--server.address=127.0.0.1",
                "--server.shutdown=" + shutdown,
                "--spring.main.banner-mode=off",
                "--spring.autoconfigure.exclude=" + StarterContract.DATA_SOURCE_AUTO_CONFIGURATION,
                "--fencekit.store=",
                "--fencekit.stripe.api-key=",
                "--fencekit.stripe.webhook-secret=" + StripeDeliveries.SECRET,
                "--fencekit.webhook.stop-timeout=15s");
    CompletableFuture<Void> closed = null;
    GatedProvider provider = context.getBean(GatedProvider.class);
    try {
      int port = Integer.parseInt(context.getEnvironment().getProperty("local.server.port"));
      FencekitWebhook webhook = context.getBean(FencekitWebhook.class);
      StripeDeliveries deliveries = new StripeDeliveries(port, Clock.systemUTC());
      CompletableFuture<HttpResponse<String>> inFlight =
          CompletableFuture.supplyAsync(() -> deliveries.deliver("/stripe/webhook", event("1")));
      assertTrue(provider.entered.await(BOUND.toSeconds(), TimeUnit.SECONDS), "provider called");

      closed = CompletableFuture.runAsync(context::close);
      // A drain that waits for the web server would start only once the held delivery ended, when
      // the provider gives up (BOUND after it was entered, before the close): the wait stays below
      // that, so such a drain still fails here, and is generous for a loaded machine (5 s may not
      // be).
      long deadline = System.nanoTime() + DRAIN_STARTS.toNanos();
      while (!webhook.core().draining() && System.nanoTime() < deadline) {
        Thread.sleep(10); // polling a condition, not timing a lease
      }
      assertTrue(
          webhook.core().draining(),
          "the webhook must drain while the web server still serves (it did not start draining"
              + " within "
              + DRAIN_STARTS.toSeconds()
              + " s of the shutdown; a drain in bean destruction waits for the web"
              + " server, which waits for the delivery)");
      HttpResponse<String> arriving = deliveries.deliver("/stripe/webhook", event("2"));
      assertEquals(503, arriving.statusCode(), arriving.body());
      assertTrue(arriving.body().contains("\"error\":\"shutting_down\""), arriving.body());
      assertEquals("30", arriving.headers().firstValue("Retry-After").orElse(null));

      provider.release.countDown();
      HttpResponse<String> answered = inFlight.get(BOUND.toSeconds(), TimeUnit.SECONDS);
      assertEquals(200, answered.statusCode(), answered.body());
      assertTrue(answered.body().startsWith("{\"outcome\":\"fulfilled\","), answered.body());
      closed.get(BOUND.toSeconds(), TimeUnit.SECONDS);
    } finally {
      provider.release.countDown();
      if (closed == null) {
        context.close();
      }
    }
  }

  private static CheckoutEvent event(String n) {
    return CheckoutEvent.completed(
        "evt_shutdown_" + n,
        PaymentStatus.PAID,
        new OrderSnapshot("cs_test_shutdown_" + n, "esim-eu-5gb", 1, null, 4500, "eur"));
  }
}
