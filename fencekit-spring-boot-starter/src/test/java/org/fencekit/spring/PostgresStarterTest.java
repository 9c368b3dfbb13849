package org.fencekit.spring;

import static org.junit.jupiter.api.Assertions.assertTrue;

import org.fencekit.store.postgres.PostgresOrderStore;
import org.fencekit.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The starter over the application's PostgreSQL DataSource (no {@code fencekit.store}), in a schema
 * of this class's own, its tables created by {@code fencekit.schema.create}.
 */
class PostgresStarterTest extends StarterContract {

  @RegisterExtension static final TestPostgres.ClassSchema SCHEMA = TestPostgres.schemaPerClass();

  @DynamicPropertySource
  static void properties(DynamicPropertyRegistry properties) {
    properties.add(
        "spring.datasource.url",
        () ->
            SCHEMA.jdbcUrl()
                + (SCHEMA.jdbcUrl().contains("?") ? "&" : "?")
                + "currentSchema="
                + SCHEMA.name());
    properties.add("fencekit.store", () -> "");
    properties.add("fencekit.schema.create", () -> "true");
    stripe(properties);
  }

  @Test
  void theStoreIsOverTheApplicationsDataSource() {
    assertTrue(store instanceof PostgresOrderStore, store.toString());
    assertTrue(store.toString().contains("DataSource"), store.toString());
  }
}
