package org.fencekit.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.fencekit.fulfilment.FulfilmentHandler;
import org.fencekit.fulfilment.Provider;
import org.fencekit.server.StripeDeliveries;
import org.fencekit.store.Item;
import org.fencekit.store.OrderStore;
import org.fencekit.store.memory.MemoryOrderStore;
import org.fencekit.webhook.MetadataMapping;
import org.fencekit.webhook.SessionMapping;
import org.fencekit.webhook.WebhookCore;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;

/**
 * Each auto-configured bean gives way to the application's own, and a missing piece stops the start
 * with a message that says what to set.
 */
class BackOffTest {

  private static final Provider PROVIDER = purchase -> new Item("p", "x");

  private final WebApplicationContextRunner runner =
      new WebApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(
                  FencekitAutoConfiguration.class,
                  FencekitWebMvcAutoConfiguration.class,
                  FencekitHealthAutoConfiguration.class))
          .withPropertyValues("fencekit.stripe.webhook-secret=" + StripeDeliveries.SECRET)
          .withBean(Provider.class, () -> PROVIDER);

  private static MemoryOrderStore memory() {
    return new MemoryOrderStore(Clock.systemUTC());
  }

  @Test
  void everyBeanIsAutoConfiguredWhenTheApplicationHasOnlyAProvider() {
    runner
        .withBean(OrderStore.class, BackOffTest::memory)
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThat(context).hasSingleBean(FulfilmentHandler.class);
              assertThat(context).hasSingleBean(FencekitWebhook.class);
              assertThat(context).hasSingleBean(FencekitWebhookController.class);
              assertThat(context).hasBean("fencekitHealthIndicator");
              assertThat(context.getBean(SessionMapping.class)).isInstanceOf(MetadataMapping.class);
            });
  }

  @Test
  void managementHealthFencekitEnabledFalseSwitchesTheIndicatorOff() {
    runner
        .withBean(OrderStore.class, BackOffTest::memory)
        .withPropertyValues("management.health.fencekit.enabled=false")
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThat(context).doesNotHaveBean("fencekitHealthIndicator");
              assertThat(context).hasSingleBean(FencekitWebhook.class);
            });
  }

  @Test
  void theApplicationsOwnStoreIsUsed() {
    MemoryOrderStore own = memory();
    runner
        .withPropertyValues("fencekit.store=sqlite:/nonexistent-directory/orders.db")
        .withBean("myStore", OrderStore.class, () -> own)
        .run(context -> assertThat(context.getBean(OrderStore.class)).isSameAs(own));
  }

  @Test
  void theApplicationsOwnMappingHandlerWebhookControllerAndIndicatorAreUsed() {
    SessionMapping mapping = session -> new MetadataMapping().snapshot(session);
    runner
        .withBean(OrderStore.class, BackOffTest::memory)
        .withBean("myMapping", SessionMapping.class, () -> mapping)
        .run(context -> assertThat(context.getBean(SessionMapping.class)).isSameAs(mapping));
    runner
        .withBean(OrderStore.class, BackOffTest::memory)
        .withBean(
            "myHandler",
            FulfilmentHandler.class,
            () ->
                FulfilmentHandler.builder(memory(), PROVIDER).lease(Duration.ofMinutes(5)).build())
        .run(
            context ->
                assertThat(context.getBean(FulfilmentHandler.class))
                    .isSameAs(context.getBean("myHandler")));
    runner
        .withBean(OrderStore.class, BackOffTest::memory)
        .withBean(
            "myWebhook",
            FencekitWebhook.class,
            () ->
                new FencekitWebhook(
                    WebhookCore.builder()
                        .handler(FulfilmentHandler.builder(memory(), PROVIDER).build())
                        .secrets(List.of(StripeDeliveries.SECRET))
                        .settingNames(FencekitAutoConfiguration.SETTING_NAMES)
                        .slots(4)
                        .build(),
                    Duration.ZERO))
        .run(
            context ->
                assertThat(context.getBean(FencekitWebhook.class))
                    .isSameAs(context.getBean("myWebhook")));
    runner
        .withBean(OrderStore.class, BackOffTest::memory)
        .withBean("myController", FencekitWebhookController.class, () -> null, definition -> {})
        .run(context -> assertThat(context).doesNotHaveBean("fencekitWebhookController"));
    runner
        .withBean(OrderStore.class, BackOffTest::memory)
        .withBean("fencekitHealthIndicator", Object.class, Object::new)
        .run(
            context ->
                assertThat(context.getBean("fencekitHealthIndicator"))
                    .isNotInstanceOf(FencekitHealthIndicator.class));
  }

  @Test
  void withoutAProviderTheStartSaysToDefineOne() {
    new WebApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(FencekitAutoConfiguration.class))
        .withPropertyValues("fencekit.stripe.webhook-secret=" + StripeDeliveries.SECRET)
        .withBean(OrderStore.class, BackOffTest::memory)
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .rootCause()
                    .hasMessageContaining("define exactly one @Bean Provider"));
  }

  @Test
  void withoutASecretTheStartRefusesAndSaysWhy() {
    new WebApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(FencekitAutoConfiguration.class))
        .withBean(Provider.class, () -> PROVIDER)
        .withBean(OrderStore.class, BackOffTest::memory)
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .rootCause()
                    .hasMessageContaining("fencekit.stripe.webhook-secret is not set"));
  }

  @Test
  void withoutAStoreOrADataSourceTheStartSaysWhatToSet() {
    runner.run(
        context ->
            assertThat(context)
                .getFailure()
                .rootCause()
                .hasMessageContaining("fencekit.store is not set"));
  }

  @Test
  void aBadStoreStringIsNamed() {
    runner
        .withPropertyValues("fencekit.store=mongodb://somewhere")
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .rootCause()
                    .hasMessageContaining("fencekit.store"));
  }
}
