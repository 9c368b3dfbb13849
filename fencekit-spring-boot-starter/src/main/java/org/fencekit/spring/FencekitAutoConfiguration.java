package org.fencekit.spring;

import io.micrometer.core.instrument.MeterRegistry;
import org.fencekit.fulfilment.FulfilmentHandler;
import org.fencekit.fulfilment.MicrometerMetrics;
import org.fencekit.fulfilment.OrphanListener;
import org.fencekit.fulfilment.Provider;
import org.fencekit.store.OrderStore;
import org.fencekit.webhook.MetadataMapping;
import org.fencekit.webhook.SessionMapping;
import org.fencekit.webhook.SettingNames;
import org.fencekit.webhook.SuccessPage;
import org.fencekit.webhook.WebhookCore;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.util.StringUtils;

/**
 * fencekit in a Spring Boot application: the {@link OrderStore} ({@link
 * FencekitStoreConfiguration}), the {@link FulfilmentHandler} over the application's {@link
 * Provider} bean, and the {@link WebhookCore} the webhook and the success page answer with (served
 * on Spring MVC by {@link FencekitWebMvcAutoConfiguration}). Each bean backs off when the
 * application defines its own.
 */
@AutoConfiguration(
    afterName = {
      "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
      "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
      "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
      "org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration"
    })
@EnableConfigurationProperties(FencekitProperties.class)
@Import(FencekitStoreConfiguration.class)
public class FencekitAutoConfiguration {

  /** The settings the webhook's answers name: the properties. */
  static final SettingNames SETTING_NAMES =
      new SettingNames("fencekit.stripe.webhook-secret", "fencekit.stripe.api-key");

  /** Creates the auto-configuration. */
  public FencekitAutoConfiguration() {}

  /** How a Checkout session becomes an order: its metadata's product_id and quantity. */
  @Bean
  @ConditionalOnMissingBean
  public SessionMapping fencekitSessionMapping() {
    return new MetadataMapping();
  }

  /**
   * The handler: the application's {@link Provider}, an {@link OrphanListener} if it has one, the
   * lease and timings from the properties, its meters on the application's {@link MeterRegistry}.
   */
  @Bean(destroyMethod = "close")
  @ConditionalOnMissingBean
  public FulfilmentHandler fencekitFulfilmentHandler(
      ObjectProvider<OrderStore> stores,
      ObjectProvider<Provider> providers,
      ObjectProvider<OrphanListener> orphanListeners,
      ObjectProvider<MeterRegistry> registries,
      FencekitProperties properties) {
    OrderStore store = stores.getIfUnique();
    if (store == null) {
      throw new IllegalStateException(
          FencekitStoreConfiguration.STORE
              + " is not set and the application has no single DataSource: set fencekit.store"
              + " (sqlite:orders.db, jdbc:postgresql://..., jdbc:mysql://..., redis://...), or give"
              + " the application a PostgreSQL DataSource (spring.datasource.url=jdbc:postgresql:"
              + "//...), or define an OrderStore bean");
    }
    Provider provider = providers.getIfUnique();
    if (provider == null) {
      throw new IllegalStateException(
          "fencekit needs one org.fencekit.fulfilment.Provider bean (what buys the item once an"
              + " order is claimed), and the application has "
              + (providers.stream().findAny().isPresent() ? "several" : "none")
              + ": define exactly one @Bean Provider, or your own FulfilmentHandler bean");
    }
    FulfilmentHandler.Builder builder =
        FulfilmentHandler.builder(store, provider)
            .lease(properties.getLease())
            .providerTimeout(properties.getProviderTimeout());
    if (properties.getHeartbeat() != null) {
      builder.heartbeat(properties.getHeartbeat());
    }
    orphanListeners.ifUnique(builder::orphanListener);
    registries.ifUnique(registry -> builder.metrics(new MicrometerMetrics(registry)));
    try {
      return builder.build();
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("fencekit.* (the handler): " + e.getMessage(), e);
    }
  }

  /**
   * The webhook's and the success page's decisions, shared with fencekit's own server: the
   * signature check with {@code fencekit.stripe.webhook-secret}, the delivery slots, the success
   * page with {@code fencekit.stripe.api-key}.
   */
  @Bean
  @ConditionalOnMissingBean
  public FencekitWebhook fencekitWebhook(
      FulfilmentHandler handler,
      SessionMapping mapping,
      ObjectProvider<MeterRegistry> registries,
      FencekitProperties properties) {
    FencekitProperties.Stripe stripe = properties.getStripe();
    FencekitProperties.Webhook webhook = properties.getWebhook();
    WebhookCore.Builder core =
        WebhookCore.builder()
            .handler(handler)
            .secrets(stripe.getWebhookSecret())
            .tolerance(stripe.getTolerance())
            .mapping(mapping)
            .settingNames(SETTING_NAMES)
            .bodyTimeout(webhook.getBodyTimeout())
            .slots(webhook.getMaxConcurrentRequests())
            .queueTime(webhook.getQueueTime());
    registries.ifUnique(core::meters);
    if (StringUtils.hasText(stripe.getApiKey())) {
      core.successPage(
          SuccessPage.client(
              SETTING_NAMES.apiKey(),
              stripe.getApiKey().trim(),
              "fencekit.stripe.api-base",
              stripe.getApiBase()));
    }
    return new FencekitWebhook(core.build(), webhook.getStopTimeout());
  }
}
