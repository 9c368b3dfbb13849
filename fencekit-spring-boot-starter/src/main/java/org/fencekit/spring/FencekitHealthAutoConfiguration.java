package org.fencekit.spring;

import org.fencekit.store.OrderStore;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.context.annotation.Bean;

/**
 * The store's health indicator ({@code fencekit} under Actuator's {@code /actuator/health}), when
 * the application has Actuator's health; off with {@code management.health.fencekit.enabled=false}
 * (or with {@code management.health.defaults.enabled=false}); backs off when the application
 * defines a bean named {@code fencekitHealthIndicator}.
 */
@AutoConfiguration(after = FencekitAutoConfiguration.class)
@ConditionalOnClass(name = "org.springframework.boot.health.contributor.HealthIndicator")
public class FencekitHealthAutoConfiguration {

  /** Creates the auto-configuration. */
  public FencekitHealthAutoConfiguration() {}

  /** Whether the store takes writes. */
  @Bean(destroyMethod = "close")
  @ConditionalOnBean(OrderStore.class)
  @ConditionalOnMissingBean(name = "fencekitHealthIndicator")
  @ConditionalOnEnabledHealthIndicator("fencekit")
  public FencekitHealthIndicator fencekitHealthIndicator(OrderStore store) {
    return new FencekitHealthIndicator(store);
  }
}
