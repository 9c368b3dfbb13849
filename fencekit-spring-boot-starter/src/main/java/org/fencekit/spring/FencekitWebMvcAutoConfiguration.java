package org.fencekit.spring;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;

/**
 * The webhook and the success page on Spring MVC, in a servlet web application; backs off when the
 * application defines its own {@link FencekitWebhookController}.
 */
@AutoConfiguration(after = FencekitAutoConfiguration.class)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass(name = "org.springframework.web.servlet.DispatcherServlet")
public class FencekitWebMvcAutoConfiguration {

  /** Creates the auto-configuration. */
  public FencekitWebMvcAutoConfiguration() {}

  /** The routes. */
  @Bean
  @ConditionalOnBean(FencekitWebhook.class)
  @ConditionalOnMissingBean
  public FencekitWebhookController fencekitWebhookController(
      FencekitWebhook webhook, FencekitProperties properties) {
    return new FencekitWebhookController(webhook, properties);
  }
}
