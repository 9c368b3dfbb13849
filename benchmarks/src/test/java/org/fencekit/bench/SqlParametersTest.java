package org.fencekit.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The raw JDBC baseline names the parameters of the stores' own SQL from its text. */
class SqlParametersTest {

  @Test
  @DisplayName("an INSERT's parameters are named by its column list, comments ignored")
  void insert() {
    assertEquals(
        List.of("session_id", "fence", "updated_at"),
        SqlParameters.names(
            "-- a comment with a ? in it\n"
                + "INSERT INTO t (session_id, fence, status, updated_at)\n"
                + "VALUES (?, ?, 'PENDING', ?) ON CONFLICT (session_id) DO NOTHING"));
  }

  @Test
  @DisplayName("an UPDATE's parameters are named by their columns, WHERE ones with where.")
  void update() {
    assertEquals(
        List.of("status", "updated_at", "where.session_id", "where.fence", "where.claim_nonce"),
        SqlParameters.names(
            "UPDATE t AS o SET status = ?, claim_nonce = NULL, updated_at = ?\n"
                + " WHERE o.session_id = ? AND o.fence = ? AND o.claim_nonce = ?"));
  }

  @Test
  @DisplayName("a parameter it cannot name is an error that shows the statement")
  void unnamed() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> SqlParameters.names("SELECT * FROM t WHERE a IN (?, ?)"));
    assertEquals(true, e.getMessage().contains("named 0 of the 2 parameters"), e.getMessage());
  }

  @Test
  @DisplayName(
      "every statement the raw baselines send is fully named, and its reads select the token")
  void storesStatements() {
    for (String path :
        List.of(
            "/org/fencekit/store/sqlite/insert-order.sql",
            "/org/fencekit/store/sqlite/update-order.sql",
            "/org/fencekit/store/jdbc/shared/select-order.sql",
            "/org/fencekit/store/postgres/insert-order.sql",
            "/org/fencekit/store/jdbc/shared/update-order.sql",
            "/org/fencekit/store/jdbc/shared/lock-order.sql",
            "/org/fencekit/store/postgres/complete-fast.sql",
            "/org/fencekit/store/mysql/insert-order.sql",
            "/org/fencekit/store/mysql/complete-fast.sql")) {
      List<String> names = SqlParameters.names(RawJdbc.statement(path));
      assertEquals(
          names.size(),
          RawJdbc.statement(path).replaceAll("--[^\\n]*", "").chars().filter(c -> c == '?').count(),
          path);
    }
    for (String read :
        List.of(
            "/org/fencekit/store/jdbc/shared/select-order.sql",
            "/org/fencekit/store/jdbc/shared/lock-order.sql")) {
      List<String> columns = SqlParameters.selected(RawJdbc.statement(read));
      assertEquals(
          true, columns.contains("fence") && columns.contains("claim_nonce"), read + " " + columns);
    }
  }
}
