package org.fencekit.testsupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Databases on the real server: made fresh, named in the URL, dropped with their tables. */
class TestMysqlTest {

  @RegisterExtension static final TestMysql.ClassDatabase CLASS = TestMysql.databasePerClass();

  static boolean exists(String database) throws SQLException {
    try (Connection connection = TestMysql.connect(TestMysql.jdbcUrl());
        PreparedStatement query =
            connection.prepareStatement(
                "SELECT 1 FROM information_schema.schemata WHERE schema_name = ?")) {
      query.setString(1, database);
      try (ResultSet rows = query.executeQuery()) {
        return rows.next();
      }
    }
  }

  @Test
  @DisplayName("a URL's database is replaced, its host, port and parameters kept")
  void withDatabase() {
    assertEquals(
        "jdbc:mysql://127.0.0.1:3306/other?user=root&password=x",
        TestMysql.withDatabase("jdbc:mysql://127.0.0.1:3306/test?user=root&password=x", "other"));
    assertEquals("jdbc:mysql://db/other", TestMysql.withDatabase("jdbc:mysql://db/test", "other"));
    assertEquals(
        "jdbc:mysql://db:3306/other?user=u",
        TestMysql.withDatabase("jdbc:mysql://db:3306?user=u", "other"));
    assertEquals(
        "jdbc:mysql://u:p@db/other", TestMysql.withDatabase("jdbc:mysql://u:p@db/", "other"));
  }

  @Test
  @DisplayName(
      "a new database is empty, has a fresh name, its URL names it, and closing it drops it with its tables")
  void newDatabaseAndDrop() throws SQLException {
    TestMysql.Database first = TestMysql.newDatabase();
    TestMysql.Database second = TestMysql.newDatabase();
    try {
      assertTrue(first.name().matches("fencekit_test_[0-9a-f]{12}"), first.name());
      assertFalse(first.name().equals(second.name()));
      TestMysql.execute(first.jdbcUrl(), "CREATE TABLE t (id int)");
      try (Connection connection = TestMysql.connect(first.jdbcUrl());
          ResultSet rows = connection.createStatement().executeQuery("SELECT DATABASE()")) {
        rows.next();
        assertEquals(first.name(), rows.getString(1));
      }
      assertTrue(exists(first.name()));
    } finally {
      first.close();
      second.close();
    }
    assertFalse(exists(first.name()), "dropped with its table");
    assertFalse(exists(second.name()));
  }

  @Test
  @DisplayName("the per-class extension made this class's database before its tests")
  void classDatabaseExists() throws SQLException {
    assertTrue(exists(CLASS.name()));
    assertTrue(CLASS.jdbcUrl().contains("/" + CLASS.name()), CLASS.jdbcUrl());
  }
}
