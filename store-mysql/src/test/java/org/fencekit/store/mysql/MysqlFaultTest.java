package org.fencekit.store.mysql;

import org.fencekit.history.ManualClock;
import org.fencekit.store.jdbc.ServerFaultTest;
import org.fencekit.testsupport.OwnMariadb;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The fault harness on a MariaDB server of this test's own, under load, with the fast path on and
 * off: connections killed ({@code KILL <id>}), the server crashed (SIGKILL) and started again, the
 * server paused past the timeouts, a table lock ({@code LOCK TABLES ... WRITE}) held past the query
 * timeout. Each run must show no violation of checks (a) to (g).
 */
@DisplayName("MysqlOrderStore under load while its server fails")
class MysqlFaultTest extends ServerFaultTest<MysqlOrderStore> {

  private static OwnMariadb server;

  MysqlFaultTest() {
    super("mysql");
  }

  @BeforeAll
  static void startServer() {
    server = OwnMariadb.start();
    createTables(MysqlOrderStore.builder(), server.jdbcUrl()).build().close();
  }

  @AfterAll
  static void stopServer() {
    if (server != null) {
      server.close();
    }
  }

  @Override
  protected MysqlOrderStore store(ManualClock clock, boolean fastPath) {
    return underFault(MysqlOrderStore.builder(), server.jdbcUrl(), clock)
        .singleStatementFastPath(fastPath)
        .build();
  }

  @Test
  @DisplayName("KILL <id> of the store's connections six times, fast path on")
  void killConnections() {
    assertNoViolations("kill-connections", true, sixTimes(server::killConnections));
  }

  @Test
  @DisplayName("KILL <id> of the store's connections six times, locking transactions")
  void killConnectionsLocking() {
    assertNoViolations("kill-connections", false, sixTimes(server::killConnections));
  }

  @Test
  @DisplayName("the server crashed (SIGKILL) and started again, fast path on")
  void crashRestart() {
    assertNoViolations("crash-restart", true, once(server::restartImmediately));
  }

  @Test
  @DisplayName("the server crashed (SIGKILL) and started again, locking transactions")
  void crashRestartLocking() {
    assertNoViolations("crash-restart", false, once(server::restartImmediately));
  }

  @Test
  @DisplayName("the server paused (SIGSTOP) for 2.5 s, past the 1 s query and connection timeouts")
  void paused() {
    assertNoViolations("sigstop", true, once(() -> server.pauseFor(2500)));
  }

  @Test
  @DisplayName("LOCK TABLES fencekit_orders WRITE held for 2.5 s, past the 1 s query timeout")
  void tableLocked() {
    assertNoViolations(
        "table-lock", true, once(() -> server.lockTableFor("fencekit_orders", 2500)));
  }
}
