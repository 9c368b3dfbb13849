package org.fencekit.store.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.fencekit.store.ClaimId;
import org.fencekit.store.Item;
import org.fencekit.store.OrderRecord;
import org.fencekit.store.OrderSnapshot;
import org.fencekit.store.OrderStatus;
import org.fencekit.store.Orphan;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The shared row mapping, templates and order step, on an in-memory SQLite database. */
class JdbcLockedOrderTest {

  private static final Instant AT = Instant.parse("2026-09-14T12:00:00.123Z");
  private static final ClaimId FIRST = new ClaimId(1, ClaimId.newNonce());
  private static final ClaimId SECOND = new ClaimId(Long.MAX_VALUE, ClaimId.newNonce());

  private final SqlTemplates sql =
      SqlTemplates.forTables(
          JdbcLockedOrderTest.class, "fencekit_orders", "fencekit_orphans", null);
  private Connection connection;

  @BeforeEach
  void open() throws SQLException {
    connection = DriverManager.getConnection("jdbc:sqlite::memory:");
    try (Statement statement = connection.createStatement()) {
      statement.execute(sql.statement("schema.sql"));
      statement.execute(sql.statement("orphans.sql"));
    }
  }

  @AfterEach
  void close() throws SQLException {
    connection.close();
  }

  private JdbcLockedOrder.Statements statements() {
    return new JdbcLockedOrder.Statements(
        sql.statement("select-order.sql"),
        sql.statement("insert-order.sql"),
        sql.statement("update-order.sql"),
        sql.statement("insert-orphan.sql"),
        "SELECT 'these tests record no mismatch'");
  }

  private JdbcLockedOrder order(String sessionId) {
    return order(sessionId, statements());
  }

  private JdbcLockedOrder order(String sessionId, JdbcLockedOrder.Statements statements) {
    return new JdbcLockedOrder("test", "memory", sessionId, statements) {
      @Override
      protected PreparedStatement prepare(String statementSql) throws SQLException {
        return connection.prepareStatement(statementSql);
      }

      @Override
      protected void release(PreparedStatement statement) throws SQLException {
        statement.close();
      }
    };
  }

  private static OrderRecord claimed(String sessionId) {
    return new OrderRecord(
        new OrderSnapshot(sessionId, "esim", 2, null, 0, "usd"),
        OrderStatus.PENDING,
        null,
        null,
        FIRST,
        AT,
        AT.plusSeconds(120),
        1,
        null,
        AT);
  }

  @Test
  @DisplayName("every field of an order, null or not, round-trips through insert, update and read")
  void roundTrip() {
    JdbcLockedOrder step = order("cs_1");
    assertTrue(step.current().isEmpty());
    OrderRecord created = claimed("cs_1");
    assertTrue(step.insert(created));
    assertFalse(order("cs_1").insert(created), "a second insert of the order inserts nothing");
    assertEquals(created, order("cs_1").current().orElseThrow());
    OrderRecord done =
        new OrderRecord(
            new OrderSnapshot("cs_1", "esim", 2, "ada@example.com", 0, "usd"),
            OrderStatus.PROVISIONED,
            new Item("prov-1", "LPA:1$x"),
            "an earlier error",
            null,
            null,
            null,
            1,
            SECOND,
            AT.plusMillis(1),
            3,
            AT);
    JdbcLockedOrder again = order("cs_1");
    again.current();
    again.update(done);
    assertTrue(again.wrote());
    OrderRecord stored = order("cs_1").current().orElseThrow();
    assertEquals(created.snapshot(), stored.snapshot(), "an update never touches the snapshot");
    assertEquals(
        new OrderRecord(
            created.snapshot(),
            done.status(),
            done.item(),
            done.lastError(),
            null,
            null,
            null,
            1,
            SECOND,
            done.updatedAt(),
            done.failures(),
            done.failedSince()),
        stored);
  }

  @Test
  @DisplayName("an orphan is recorded once per token and provider order id, and read in order")
  void orphans() throws SQLException {
    order("cs_2").insert(claimed("cs_2"));
    Orphan first = new Orphan("cs_2", SECOND, new Item("prov-9", null), AT);
    Orphan second = new Orphan("cs_2", FIRST, new Item("prov-8", "x"), AT.plusMillis(5));
    JdbcLockedOrder step = order("cs_2");
    step.addOrphan(first);
    assertTrue(step.wrote());
    JdbcLockedOrder retry = order("cs_2");
    retry.addOrphan(first);
    assertFalse(retry.wrote(), "a retried orphan writes nothing");
    order("cs_2").addOrphan(second);
    try (PreparedStatement select =
        connection.prepareStatement(sql.statement("select-orphans.sql"))) {
      select.setString(1, "cs_2");
      assertEquals(List.of(first, second), OrderRows.orphans(select));
    }
  }

  @Test
  @DisplayName("an update before the order was read in its step, or of another order, is refused")
  void updateNeedsRead() {
    order("cs_3").insert(claimed("cs_3"));
    IllegalStateException unread =
        assertThrows(IllegalStateException.class, () -> order("cs_3").update(claimed("cs_3")));
    assertTrue(unread.getMessage().contains("read current() before update()"), unread.getMessage());
    assertThrows(IllegalArgumentException.class, () -> order("cs_3").insert(claimed("cs_4")));
  }

  @Test
  @DisplayName(
      "a server-time read gives now() with or without the order, in the same read; without it now() is empty")
  void serverTimeRead() {
    JdbcLockedOrder plain = order("cs_time");
    assertEquals(Optional.empty(), plain.now(), "the store's clock decides");
    JdbcLockedOrder.Statements timed =
        statements().withServerTime(true, sql.statement("select-order-server-time.sql"));
    Instant server = Instant.ofEpochMilli(1789000000123L);
    JdbcLockedOrder missing = order("cs_time", timed);
    assertEquals(Optional.of(server), missing.now(), "now() reads the row first");
    assertTrue(missing.current().isEmpty());
    assertTrue(missing.insert(claimed("cs_time")));
    JdbcLockedOrder existing = order("cs_time", timed);
    assertEquals(claimed("cs_time"), existing.current().orElseThrow());
    assertEquals(Optional.of(server), existing.now());
    assertEquals(
        statements(), statements().withServerTime(false, "unused"), "off: the same statements");
  }

  @Test
  @DisplayName("a server-time read that returns no row fails, saying it must return one")
  void serverTimeReadWithoutRow() {
    JdbcLockedOrder.Statements timed =
        statements().withServerTime(true, sql.statement("select-order.sql"));
    JdbcFailure failure = assertThrows(JdbcFailure.class, () -> order("cs_none", timed).now());
    assertTrue(
        failure.getCause().getMessage().contains("must return one row"),
        failure.getCause().getMessage());
  }

  @Test
  @DisplayName("a statement that fails is thrown as JdbcFailure carrying the SQLException")
  void failures() throws SQLException {
    connection.close();
    JdbcFailure failure = assertThrows(JdbcFailure.class, () -> order("cs_5").current());
    assertTrue(failure.getCause() instanceof SQLException);
  }

  @Test
  @DisplayName("templates fill in the tables and the one column list; an unknown placeholder fails")
  void templates() throws SQLException {
    assertEquals(
        "SELECT " + String.join(", ", OrderRows.ORDER_COLUMNS) + " FROM t WHERE session_id = ?\n",
        SqlTemplates.forTables(JdbcLockedOrderTest.class, "t", "o", null)
            .statement("select-order.sql"));
    IllegalStateException unknown =
        assertThrows(IllegalStateException.class, () -> sql.statement("unknown.sql"));
    assertTrue(unknown.getMessage().contains("fencekit_nonsense"), unknown.getMessage());
    assertThrows(IllegalStateException.class, () -> sql.statement("missing.sql"));
    try (PreparedStatement select =
        connection.prepareStatement(sql.statement("select-order.sql"))) {
      OrderRows.checkColumns(select.getMetaData(), OrderRows.ORDER_COLUMNS, "select-order.sql");
      IllegalStateException mismatch =
          assertThrows(
              IllegalStateException.class,
              () ->
                  OrderRows.checkColumns(
                      select.getMetaData(), OrderRows.ORPHAN_COLUMNS, "select-order.sql"));
      assertTrue(mismatch.getMessage().startsWith("select-order.sql reads the columns"));
    }
  }
}
