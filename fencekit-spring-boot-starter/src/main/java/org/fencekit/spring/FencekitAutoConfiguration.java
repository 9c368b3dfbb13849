package org.fencekit.spring;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.util.List;
import javax.sql.DataSource;
import org.fencekit.fulfilment.FulfilmentHandler;
import org.fencekit.fulfilment.MicrometerMetrics;
import org.fencekit.fulfilment.OrphanListener;
import org.fencekit.fulfilment.Provider;
import org.fencekit.server.MetadataMapping;
import org.fencekit.server.SessionMapping;
import org.fencekit.server.SuccessPage;
import org.fencekit.server.WebhookCore;
import org.fencekit.server.WebhookServer;
import org.fencekit.store.OrderStore;
import org.fencekit.store.postgres.PostgresOrderStore;
import org.fencekit.store.spec.StoreSpec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * fencekit in a Spring Boot application: the {@link OrderStore}, the {@link FulfilmentHandler} over
 * the application's {@link Provider} bean, and the {@link WebhookCore} the webhook and the success
 * page answer with (served on Spring MVC by {@link FencekitWebMvcAutoConfiguration}). Each bean
 * backs off when the application defines its own.
 */
@AutoConfiguration(
    afterName = {
      "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
      "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
      "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
      "org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration"
    })
@EnableConfigurationProperties(FencekitProperties.class)
public class FencekitAutoConfiguration {

  private static final Logger LOG = LoggerFactory.getLogger(FencekitAutoConfiguration.class);

  /** The settings the webhook's answers name: the properties. */
  static final WebhookCore.Settings SETTINGS =
      new WebhookCore.Settings("fencekit.stripe.webhook-secret", "fencekit.stripe.api-key");

  /** Creates the auto-configuration. */
  public FencekitAutoConfiguration() {}

  /**
   * The store: from {@code fencekit.store}, or over the application's PostgreSQL {@link
   * DataSource}; closed with the context (a DataSource given stays open).
   */
  @Bean(destroyMethod = "close")
  @ConditionalOnMissingBean
  public OrderStore fencekitOrderStore(
      FencekitProperties properties, ObjectProvider<DataSource> dataSources) {
    Boolean create = properties.getSchema().getCreate();
    String text = properties.getStore();
    if (text != null && !text.isBlank()) {
      StoreSpec spec = StoreSpec.parse("fencekit.store", text);
      try {
        return spec.open(Clock.systemUTC(), create == null || create, StoreSpec.DEFAULT_KEY_PREFIX);
      } catch (IllegalArgumentException e) {
        throw e;
      } catch (RuntimeException e) {
        throw new IllegalStateException(
            ("fencekit.store: cannot open the store %s: %s (start it, or set fencekit.store to"
                    + " one that answers)")
                .formatted(spec, spec.redact(String.valueOf(e.getMessage()))),
            e);
      }
    }
    DataSource dataSource = dataSources.getIfUnique();
    if (dataSource == null) {
      throw new IllegalStateException(
          "fencekit.store is not set and the application has no single DataSource: set"
              + " fencekit.store (sqlite:orders.db, jdbc:postgresql://..., jdbc:mysql://...,"
              + " redis://...), or give the application a PostgreSQL DataSource"
              + " (spring.datasource.url=jdbc:postgresql://...), or define an OrderStore bean");
    }
    String product = product(dataSource);
    if (!"PostgreSQL".equals(product)) {
      throw new IllegalStateException(
          "fencekit.store is not set and the application's DataSource is "
              + product
              + ", not PostgreSQL: set fencekit.store to the store's own string (e.g."
              + " jdbc:mysql://... for MySQL), or define an OrderStore bean");
    }
    PostgresOrderStore store =
        PostgresOrderStore.builder()
            .dataSource(dataSource)
            .createSchema(create != null && create)
            .build();
    LOG.info("fencekit: orders in {}", store);
    return store;
  }

  private static String product(DataSource dataSource) {
    try (Connection connection = dataSource.getConnection()) {
      return connection.getMetaData().getDatabaseProductName();
    } catch (SQLException e) {
      throw new IllegalStateException(
          "fencekit.store is not set, so fencekit keeps orders over the application's DataSource,"
              + " which does not answer ("
              + e.getMessage()
              + "): start the database, or set fencekit.store",
          e);
    }
  }

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
      OrderStore store,
      ObjectProvider<Provider> providers,
      ObjectProvider<OrphanListener> orphanListeners,
      ObjectProvider<MeterRegistry> registries,
      FencekitProperties properties) {
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
    List<String> secrets =
        stripe.getWebhookSecret().stream().map(String::trim).filter(s -> !s.isEmpty()).toList();
    if (secrets.isEmpty()) {
      throw new IllegalArgumentException(
          "fencekit.stripe.webhook-secret is not set: the webhook refuses to start without the"
              + " endpoint's signing secret (whsec_..., shown in the Stripe dashboard or printed by"
              + " `stripe listen`), since anyone could otherwise post fake payments");
    }
    SuccessPage successPage = null;
    if (stripe.getApiKey() != null && !stripe.getApiKey().isBlank()) {
      successPage =
          new SuccessPage(
              SuccessPage.client(
                  "fencekit.stripe.api-key",
                  stripe.getApiKey().trim(),
                  "fencekit.stripe.api-base",
                  stripe.getApiBase()),
              mapping,
              handler);
    }
    FencekitProperties.Webhook webhook = properties.getWebhook();
    WebhookCore core =
        new WebhookCore(
            handler,
            secrets,
            stripe.getTolerance(),
            Clock.systemUTC(),
            mapping,
            successPage,
            SETTINGS,
            registries.getIfUnique(SimpleMeterRegistry::new),
            new WebhookCore.Limits(
                WebhookServer.MAX_BODY_BYTES,
                webhook.getBodyTimeout(),
                webhook.getMaxConcurrentRequests(),
                webhook.getQueueTime()));
    return new FencekitWebhook(core, webhook.getStopTimeout());
  }
}
