package org.fencekit.store.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** A statement goes to the driver without the comments that document its resource. */
class SqlTemplatesTest {

  @Test
  @DisplayName(
      "whole-line comments are left out, placeholders filled, a -- inside a line's code kept")
  void commentLinesAreLeftOut() {
    String statement =
        SqlTemplates.forTables(SqlTemplatesTest.class, "orders_t", "orphans_t", null)
            .statement("commented.sql");
    assertEquals(
        "SELECT "
            + String.join(", ", OrderRows.ORDER_COLUMNS)
            + "\n  FROM orders_t\n WHERE session_id = ? AND note = 'a -- b'\n",
        statement);
  }
}
