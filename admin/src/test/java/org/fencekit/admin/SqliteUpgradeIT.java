package org.fencekit.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.fencekit.admin.AdminProcess.Run;
import org.fencekit.store.jdbc.Migrations;
import org.fencekit.store.sqlite.SqliteOrderStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code schema check} and {@code schema migrate} on a file the first release made (its V1 script,
 * an order in it): the check says what to run and changes nothing, queries refuse, the migrate
 * upgrades, and the order is there afterwards.
 */
class SqliteUpgradeIT {

  @TempDir Path directory;

  private Run admin(String... args) throws Exception {
    return AdminProcess.run(
        directory, Map.of("FENCEKIT_STORE", "sqlite:" + directory.resolve("orders.db")), args);
  }

  private void firstReleaseFile(String sessionId) throws Exception {
    String v1;
    try (InputStream in =
        SqliteOrderStore.class.getResourceAsStream(Migrations.SCRIPTS.get(0).resource("sqlite"))) {
      v1 = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    long claimed = Instant.now().minus(Duration.ofHours(1)).toEpochMilli();
    try (Connection connection =
            DriverManager.getConnection("jdbc:sqlite:" + directory.resolve("orders.db"));
        Statement statement = connection.createStatement()) {
      for (String ddl : Migrations.statements(v1)) {
        statement.execute(ddl);
      }
      try (PreparedStatement insert =
          connection.prepareStatement(
              "INSERT INTO fencekit_orders (session_id, product_id, quantity, amount_total,"
                  + " currency, status, fence, claim_fence, claim_nonce, claimed_at,"
                  + " lease_expires_at, updated_at) VALUES (?, 'esim-eu-5gb', 1, 1500, 'eur',"
                  + " 'PENDING', 1, 1, '0123456789abcdef0123456789abcdef', ?, ?, ?)")) {
        insert.setString(1, sessionId);
        insert.setLong(2, claimed);
        insert.setLong(3, claimed + 120_000);
        insert.setLong(4, claimed);
        insert.executeUpdate();
      }
    }
  }

  @Test
  void aFirstReleaseFileIsReportedThenMigratedKeepingItsOrders() throws Exception {
    firstReleaseFile("cs_test_v1");

    Run check = admin("schema", "check");
    assertEquals(1, check.exitCode(), check.toString());
    assertTrue(check.out().contains("V2__fencekit_operations.sql"), check.toString());
    Run again = admin("schema", "check");
    assertEquals(1, again.exitCode(), "the check changed the file: " + again);

    Run query = admin("orders", "show", "cs_test_v1");
    assertEquals(2, query.exitCode(), query.toString());
    assertTrue(query.err().contains("schema check"), query.toString());

    Run migrate = admin("schema", "migrate");
    assertEquals(0, migrate.exitCode(), migrate.toString());
    Run current = admin("schema", "check");
    assertEquals(0, current.exitCode(), current.toString());

    Run shown = admin("orders", "show", "cs_test_v1");
    assertEquals(0, shown.exitCode(), shown.toString());
    assertTrue(shown.out().contains("status      PENDING"), shown.toString());
    Run stuck = admin("orders", "stuck", "--older-than", "30m");
    assertEquals(1, stuck.exitCode(), stuck.toString());
    assertTrue(stuck.out().contains("cs_test_v1"), stuck.toString());
  }
}
