package org.fencekit.spring;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import javax.sql.DataSource;
import org.fencekit.store.OrderStore;
import org.fencekit.store.postgres.PostgresOrderStore;
import org.fencekit.store.spec.StoreSpec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.autoconfigure.condition.ConditionMessage;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.type.AnnotatedTypeMetadata;
import org.springframework.util.StringUtils;

/**
 * The {@link OrderStore}, chosen by conditions as Boot's own starters choose: from {@code
 * fencekit.store} when it is set (a blank value is unset), else over the application's single
 * {@link DataSource}, which must be PostgreSQL. Neither applies when the application defines its
 * own store. With none of the three, the handler's bean says what to set.
 */
@Configuration(proxyBeanMethods = false)
class FencekitStoreConfiguration {

  private static final Logger LOG = LoggerFactory.getLogger(FencekitStoreConfiguration.class);

  /** The property that names the store. */
  static final String STORE = "fencekit.store";

  /** The store from {@code fencekit.store}, as the server's FENCEKIT_STORE takes it. */
  @Configuration(proxyBeanMethods = false)
  @Conditional(StoreSet.class)
  static class FromStoreString {

    /** The store {@code fencekit.store} names, its schema created unless told not to. */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    OrderStore fencekitOrderStore(FencekitProperties properties) {
      Boolean create = properties.getSchema().getCreate();
      StoreSpec spec = StoreSpec.parse(STORE, properties.getStore());
      try {
        return spec.open(Clock.systemUTC(), create == null || create, StoreSpec.DEFAULT_KEY_PREFIX);
      } catch (IllegalArgumentException e) {
        throw e;
      } catch (RuntimeException e) {
        throw new IllegalStateException(
            ("%s: cannot open the store %s: %s (start it, or set %s to one that answers)")
                .formatted(STORE, spec, spec.redact(String.valueOf(e.getMessage())), STORE),
            e);
      }
    }
  }

  /**
   * The store over the application's PostgreSQL DataSource, when {@code fencekit.store} is not set.
   */
  @Configuration(proxyBeanMethods = false)
  @Conditional(StoreNotSet.class)
  @ConditionalOnSingleCandidate(DataSource.class)
  static class OverDataSource {

    /**
     * A PostgreSQL store over the application's DataSource (left open: it is the application's);
     * its schema is the application's migrations' unless {@code fencekit.schema.create=true}.
     *
     * @throws IllegalStateException if the DataSource is not PostgreSQL, or does not answer
     */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    OrderStore fencekitOrderStore(FencekitProperties properties, DataSource dataSource) {
      String product = product(dataSource);
      if (!"PostgreSQL".equals(product)) {
        throw new IllegalStateException(
            ("%s is not set and the application's DataSource is %s, not PostgreSQL: set %s to the"
                    + " store's own string (e.g. jdbc:mysql://... for MySQL, sqlite:orders.db), or"
                    + " define an OrderStore bean")
                .formatted(STORE, product, STORE));
      }
      Boolean create = properties.getSchema().getCreate();
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
            ("%s is not set, so fencekit keeps orders over the application's DataSource, which"
                    + " does not answer (%s): start the database, or set %s")
                .formatted(STORE, e.getMessage(), STORE),
            e);
      }
    }
  }

  /** Matches when {@code fencekit.store} holds text (or, for {@link StoreNotSet}, when not). */
  static class StoreSet extends SpringBootCondition {

    private final boolean wanted;

    StoreSet() {
      this(true);
    }

    StoreSet(boolean wanted) {
      this.wanted = wanted;
    }

    @Override
    public ConditionOutcome getMatchOutcome(
        ConditionContext context, AnnotatedTypeMetadata metadata) {
      boolean set = StringUtils.hasText(context.getEnvironment().getProperty(STORE));
      ConditionMessage.Builder message = ConditionMessage.forCondition("fencekit store string");
      return new ConditionOutcome(
          set == wanted,
          set
              ? message.because(STORE + " is set")
              : message.because(STORE + " is not set (or blank)"));
    }
  }

  /** Matches when {@code fencekit.store} is unset or blank. */
  static class StoreNotSet extends StoreSet {

    StoreNotSet() {
      super(false);
    }
  }
}
