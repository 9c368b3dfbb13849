package org.fencekit.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.fencekit.store.ClaimId;
import org.fencekit.store.Item;
import org.fencekit.testsupport.OwnMariadb;
import org.fencekit.testsupport.TestPostgres;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The SQL floor is a correct fenced compare-and-set on both engines: one holder per lease, a stale
 * complete changes nothing and keeps its item as an orphan once, a replay of the settling token
 * writes nothing, a provisioned order is never claimed again.
 */
class SqlFloorTest {

  private static final long LEASE = 60_000;
  private static final long T = 1_000_000;

  @Test
  @DisplayName("PostgreSQL: the floor fences, keeps a stale item once, answers a replay")
  void postgres() throws SQLException {
    try (TestPostgres.Schema schema = TestPostgres.newSchema();
        SqlFloor floor =
            SqlFloor.postgres(
                DriverManager.getConnection(
                    schema.jdbcUrl() + "&currentSchema=" + schema.name()))) {
      fences(floor, schema.jdbcUrl() + "&currentSchema=" + schema.name());
    }
  }

  @Test
  @DisplayName(
      "PostgreSQL: the indexed floor fences as the floor does; its index holds exactly the held"
          + " claims and the stuck listing reads it")
  void postgresIndexed() throws SQLException {
    try (TestPostgres.Schema schema = TestPostgres.newSchema();
        SqlFloor floor =
            SqlFloor.postgresIndexed(
                DriverManager.getConnection(
                    schema.jdbcUrl() + "&currentSchema=" + schema.name()))) {
      String url = schema.jdbcUrl() + "&currentSchema=" + schema.name();
      String stuck =
          "SELECT session_id FROM floor_orders WHERE claim_nonce IS NOT NULL"
              + " AND lease_expires_at <= %d ORDER BY lease_expires_at LIMIT 10";
      assertEquals(1, floor.claim(Orders.snapshot("held"), ClaimId.newNonce(), T, LEASE));
      try (Connection c = DriverManager.getConnection(url);
          Statement s = c.createStatement()) {
        s.execute("SET enable_seqscan = off");
        StringBuilder plan = new StringBuilder();
        try (ResultSet row = s.executeQuery("EXPLAIN " + stuck.formatted(T + LEASE))) {
          while (row.next()) {
            plan.append(row.getString(1)).append('\n');
          }
        }
        assertTrue(plan.toString().contains("floor_orders_held"), plan.toString());
        assertEquals(
            1,
            count(url, "SELECT count(*) FROM (" + stuck.formatted(T + LEASE) + ") held"),
            "the held claim, its lease over");
      }
      fences(floor, url);
      assertEquals(
          1,
          count(url, "SELECT count(*) FROM (" + stuck.formatted(T + 10 * LEASE) + ") held"),
          "the held claim alone: the settled order left the index");
    }
  }

  @Test
  @DisplayName("MariaDB: the floor fences, keeps a stale item once, answers a replay")
  void mysql() throws SQLException {
    try (OwnMariadb server = OwnMariadb.start();
        SqlFloor floor = SqlFloor.mysql(DriverManager.getConnection(server.jdbcUrl()))) {
      fences(floor, server.jdbcUrl());
    }
  }

  private static void fences(SqlFloor floor, String url) throws SQLException {
    var order = Orders.snapshot("o");
    String n1 = ClaimId.newNonce();
    String n3 = ClaimId.newNonce();
    assertEquals(1, floor.claim(order, n1, T, LEASE), "a fresh order's claim");
    assertEquals(
        0, floor.claim(order, ClaimId.newNonce(), T + LEASE - 1, LEASE), "a claim in a live lease");
    assertEquals(2, floor.claim(order, n3, T + LEASE, LEASE), "a claim once the lease ended");
    ClaimId stale = new ClaimId(1, n1);
    ClaimId owner = new ClaimId(2, n3);
    Item bought = new Item("p1", "x");
    assertEquals(SqlFloor.Completed.SUPERSEDED, floor.complete("o", stale, bought, T));
    assertEquals(SqlFloor.Completed.SUPERSEDED, floor.complete("o", stale, bought, T));
    assertEquals(SqlFloor.Completed.SUPERSEDED, floor.complete("o", new ClaimId(2, n1), bought, T));
    assertEquals(2, count(url, "SELECT count(*) FROM floor_orphans"), "each stale item once");
    assertEquals(SqlFloor.Completed.WRITTEN, floor.complete("o", owner, new Item("p2", "y"), T));
    assertEquals(SqlFloor.Completed.REPLAY, floor.complete("o", owner, new Item("p2", "y"), T));
    assertEquals(
        1,
        count(
            url,
            "SELECT count(*) FROM floor_orders WHERE status = 'PROVISIONED'"
                + " AND provider_order_id = 'p2' AND settled_fence = 2 AND claim_nonce IS NULL"),
        "the owner's item, settled by its token");
    assertEquals(
        0, floor.claim(order, ClaimId.newNonce(), T + 10 * LEASE, LEASE), "a provisioned order");
    assertEquals(2, count(url, "SELECT count(*) FROM floor_orphans"), "no orphan from a replay");
  }

  private static long count(String url, String sql) throws SQLException {
    try (Connection c = DriverManager.getConnection(url);
        Statement s = c.createStatement();
        ResultSet row = s.executeQuery(sql)) {
      row.next();
      return row.getLong(1);
    }
  }
}
