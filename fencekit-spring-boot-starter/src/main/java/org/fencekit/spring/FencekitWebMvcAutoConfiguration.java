package org.fencekit.spring;

import jakarta.servlet.DispatcherType;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.core.Ordered;

/**
 * The webhook and the success page on Spring MVC, in a servlet web application, and the container's
 * error answers on the webhook's path as JSON; each backs off when the application defines its own.
 */
@AutoConfiguration(after = FencekitAutoConfiguration.class)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass(name = "org.springframework.web.servlet.DispatcherServlet")
public class FencekitWebMvcAutoConfiguration {

  /** Creates the auto-configuration. */
  public FencekitWebMvcAutoConfiguration() {}

  /**
   * The container's error answers on the webhook's path as JSON ({@link
   * FencekitWebhookErrorFilter}), on the error dispatch only.
   */
  @Bean
  @ConditionalOnBean(FencekitWebhook.class)
  @ConditionalOnMissingBean(name = "fencekitWebhookErrorFilter")
  public FilterRegistrationBean<FencekitWebhookErrorFilter> fencekitWebhookErrorFilter(
      FencekitWebhook webhook, FencekitProperties properties) {
    FilterRegistrationBean<FencekitWebhookErrorFilter> registration =
        new FilterRegistrationBean<>(
            new FencekitWebhookErrorFilter(webhook.core(), properties.getWebhook().getPath()));
    registration.setDispatcherTypes(DispatcherType.ERROR);
    registration.addUrlPatterns("/*");
    registration.setOrder(Ordered.HIGHEST_PRECEDENCE);
    return registration;
  }

  /** The routes. */
  @Bean
  @ConditionalOnBean(FencekitWebhook.class)
  @ConditionalOnMissingBean
  public FencekitWebhookController fencekitWebhookController(
      FencekitWebhook webhook, FencekitProperties properties) {
    return new FencekitWebhookController(webhook, properties);
  }
}
