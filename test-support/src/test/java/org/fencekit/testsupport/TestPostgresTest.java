package org.fencekit.testsupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.platform.engine.discovery.DiscoverySelectors;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;

/** Schemas on the real server: made fresh, dropped with everything in them. */
class TestPostgresTest {

  @RegisterExtension static final TestPostgres.ClassSchema CLASS = TestPostgres.schemaPerClass();

  private static String classSchemaName;

  static boolean exists(String schema) throws SQLException {
    try (Connection connection = TestPostgres.connect();
        PreparedStatement query =
            connection.prepareStatement(
                "SELECT 1 FROM information_schema.schemata WHERE schema_name = ?")) {
      query.setString(1, schema);
      try (ResultSet rows = query.executeQuery()) {
        return rows.next();
      }
    }
  }

  @AfterAll
  static void classSchemaDroppedByItsExtension() throws SQLException {
    // runs before the extension's afterAll: the schema is still there, and the next class's is new
    if (classSchemaName != null) {
      assertTrue(exists(classSchemaName));
    }
  }

  @Test
  @DisplayName("a new schema is empty, has a fresh name, and closing it drops it with its tables")
  void newSchemaAndDrop() throws SQLException {
    TestPostgres.Schema first = TestPostgres.newSchema();
    TestPostgres.Schema second = TestPostgres.newSchema();
    try {
      assertTrue(first.name().matches("fencekit_test_[0-9a-f]{12}"), first.name());
      assertFalse(first.name().equals(second.name()));
      assertEquals(TestPostgres.jdbcUrl(), first.jdbcUrl());
      TestPostgres.execute("CREATE TABLE " + first.name() + ".t (id int)");
      assertTrue(exists(first.name()));
    } finally {
      first.close();
      second.close();
    }
    assertFalse(exists(first.name()), "CASCADE drops the schema with its table");
    assertFalse(exists(second.name()));
  }

  @Test
  @DisplayName("the per-class extension made this class's schema before its tests")
  void classSchemaExists() throws SQLException {
    classSchemaName = CLASS.name();
    assertTrue(exists(CLASS.name()));
    assertEquals(TestPostgres.jdbcUrl(), CLASS.jdbcUrl());
  }

  /** Run only inside {@link #dropsAfterTheClass}: records the schema it was given. */
  static class UsesClassSchema {
    @RegisterExtension static final TestPostgres.ClassSchema SCHEMA = TestPostgres.schemaPerClass();
    static String seen;

    @Test
    void records() throws SQLException {
      seen = SCHEMA.name();
      assertTrue(exists(seen));
    }
  }

  @Test
  @DisplayName("the per-class extension drops the schema after the class's tests")
  void dropsAfterTheClass() throws SQLException {
    SummaryGeneratingListener summary = new SummaryGeneratingListener();
    LauncherFactory.create()
        .execute(
            LauncherDiscoveryRequestBuilder.request()
                .selectors(DiscoverySelectors.selectClass(UsesClassSchema.class))
                .build(),
            summary);
    assertEquals(1, summary.getSummary().getTestsSucceededCount(), "the sample test passed");
    assertFalse(exists(UsesClassSchema.seen), UsesClassSchema.seen + " is still there");
  }

  /** A nested class shares the schema of the class that registered the extension. */
  @Nested
  class Inner {
    @Test
    @DisplayName("a nested class sees its enclosing class's schema")
    void sameSchema() throws SQLException {
      assertTrue(exists(CLASS.name()));
      if (classSchemaName != null) {
        assertEquals(classSchemaName, CLASS.name());
      }
    }
  }
}
