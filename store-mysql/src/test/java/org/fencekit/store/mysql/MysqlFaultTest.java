package org.fencekit.store.mysql;

import java.time.Duration;
import java.time.Instant;
import org.fencekit.faults.FaultRun;
import org.fencekit.history.ManualClock;
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
class MysqlFaultTest {

  private static final Duration TIMEOUT = Duration.ofSeconds(1);

  private static OwnMariadb server;

  @BeforeAll
  static void startServer() {
    server = OwnMariadb.start();
    // the tables once, with time to spare for a first connection on a loaded machine
    MysqlOrderStore.builder()
        .jdbcUrl(server.jdbcUrl())
        .createSchema(true)
        .connectionTimeout(Duration.ofSeconds(30))
        .build()
        .close();
  }

  @AfterAll
  static void stopServer() {
    if (server != null) {
      server.close();
    }
  }

  private static MysqlOrderStore store(ManualClock clock, boolean fastPath) {
    return MysqlOrderStore.builder()
        .jdbcUrl(server.jdbcUrl())
        .clock(clock)
        .queryTimeout(TIMEOUT)
        .connectionTimeout(TIMEOUT)
        .maximumPoolSize(4)
        .singleStatementFastPath(fastPath)
        .build();
  }

  private static ManualClock clock() {
    return new ManualClock(Instant.parse("2026-01-01T00:00:00Z"));
  }

  private static String name(boolean fastPath, String fault) {
    return (fastPath ? "mysql" : "mysql-locking") + "/" + fault;
  }

  private static void killRepeatedly(boolean fastPath) {
    ManualClock clock = clock();
    try (MysqlOrderStore store = store(clock, fastPath)) {
      FaultRun.builder(name(fastPath, "kill-connections"), store, clock)
          .fault(
              () -> {
                int killed = 0;
                for (int i = 0; i < 6; i++) {
                  killed += server.killConnections();
                  Thread.sleep(150);
                }
                return killed;
              })
          .run()
          .assertNoViolations();
    }
  }

  private static void crashAndRestart(boolean fastPath) {
    ManualClock clock = clock();
    try (MysqlOrderStore store = store(clock, fastPath)) {
      FaultRun.builder(name(fastPath, "crash-restart"), store, clock)
          .fault(
              () -> {
                server.restartImmediately();
                return 1;
              })
          .run()
          .assertNoViolations();
    }
  }

  @Test
  @DisplayName("KILL <id> of the store's connections six times, fast path on")
  void killConnections() {
    killRepeatedly(true);
  }

  @Test
  @DisplayName("KILL <id> of the store's connections six times, locking transactions")
  void killConnectionsLocking() {
    killRepeatedly(false);
  }

  @Test
  @DisplayName("the server crashed (SIGKILL) and started again, fast path on")
  void crashRestart() {
    crashAndRestart(true);
  }

  @Test
  @DisplayName("the server crashed (SIGKILL) and started again, locking transactions")
  void crashRestartLocking() {
    crashAndRestart(false);
  }

  @Test
  @DisplayName("the server paused (SIGSTOP) for 2.5 s, past the 1 s query and connection timeouts")
  void paused() {
    ManualClock clock = clock();
    try (MysqlOrderStore store = store(clock, true)) {
      FaultRun.builder("mysql/sigstop", store, clock)
          .fault(
              () -> {
                server.pauseFor(2500);
                return 1;
              })
          .run()
          .assertNoViolations();
    }
  }

  @Test
  @DisplayName("LOCK TABLES fencekit_orders WRITE held for 2.5 s, past the 1 s query timeout")
  void tableLocked() {
    ManualClock clock = clock();
    try (MysqlOrderStore store = store(clock, true)) {
      FaultRun.builder("mysql/table-lock", store, clock)
          .fault(
              () -> {
                server.lockTableFor("fencekit_orders", 2500);
                return 1;
              })
          .run()
          .assertNoViolations();
    }
  }
}
