package org.fencekit.store.postgres;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariDataSource;
import java.time.Duration;
import java.time.Instant;
import org.fencekit.faults.FaultRun;
import org.fencekit.history.ManualClock;
import org.fencekit.store.OrderSnapshot;
import org.fencekit.store.StoreUnavailableException;
import org.fencekit.testsupport.OwnPostgres;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The fault harness on a PostgreSQL server of this test's own, under load, with the fast path on
 * and off: backends terminated, an immediate restart, the server paused past the timeouts, a table
 * lock held past the query timeout. Each run must show no violation of checks (a) to (g).
 */
@DisplayName("PostgresOrderStore under load while its server fails")
class PostgresFaultTest {

  private static final Duration TIMEOUT = Duration.ofSeconds(1);

  private static OwnPostgres server;

  @BeforeAll
  static void startServer() {
    server = OwnPostgres.start();
    // the tables once, with time to spare for a first connection on a loaded machine
    PostgresOrderStore.builder()
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

  private static PostgresOrderStore store(ManualClock clock, boolean fastPath) {
    return PostgresOrderStore.builder()
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
    return (fastPath ? "postgres" : "postgres-locking") + "/" + fault;
  }

  private static void terminateRepeatedly(boolean fastPath) {
    ManualClock clock = clock();
    try (PostgresOrderStore store = store(clock, fastPath)) {
      FaultRun.builder(name(fastPath, "terminate-backends"), store, clock)
          .fault(
              () -> {
                int terminated = 0;
                for (int i = 0; i < 6; i++) {
                  terminated += server.terminateBackends();
                  Thread.sleep(150);
                }
                return terminated;
              })
          .run()
          .assertNoViolations();
    }
  }

  private static void restartImmediately(boolean fastPath) {
    ManualClock clock = clock();
    try (PostgresOrderStore store = store(clock, fastPath)) {
      FaultRun.builder(name(fastPath, "immediate-restart"), store, clock)
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
  @DisplayName("pg_terminate_backend of the store's connections six times, fast path on")
  void terminateBackends() {
    terminateRepeatedly(true);
  }

  @Test
  @DisplayName("pg_terminate_backend of the store's connections six times, locking transactions")
  void terminateBackendsLocking() {
    terminateRepeatedly(false);
  }

  @Test
  @DisplayName("an immediate restart (pg_ctl stop -m immediate, then start), fast path on")
  void immediateRestart() {
    restartImmediately(true);
  }

  @Test
  @DisplayName("an immediate restart, locking transactions")
  void immediateRestartLocking() {
    restartImmediately(false);
  }

  @Test
  @DisplayName("the server paused (SIGSTOP) for 2.5 s, past the 1 s query and connection timeouts")
  void paused() {
    ManualClock clock = clock();
    try (PostgresOrderStore store = store(clock, true)) {
      FaultRun.builder("postgres/sigstop", store, clock)
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
  @DisplayName("the orders table locked for 2.5 s, past the 1 s query timeout")
  void tableLocked() {
    ManualClock clock = clock();
    try (PostgresOrderStore store = store(clock, true)) {
      FaultRun.builder("postgres/table-lock", store, clock)
          .fault(
              () -> {
                server.lockTableFor(PostgresOrderStore.DEFAULT_ORDERS_TABLE, 2500);
                return 1;
              })
          .run()
          .assertNoViolations();
    }
  }

  @Test
  @DisplayName(
      "connectionTimeout bounds a borrow: the pool's validation timeout is set below it, not"
          + " HikariCP's 5 s default")
  void connectionTimeoutBoundsValidation() {
    try (PostgresOrderStore store = store(clock(), true)) {
      HikariDataSource pool = (HikariDataSource) store.storage().dataSource();
      assertTrue(
          pool.getValidationTimeout() < TIMEOUT.toMillis(),
          "validationTimeout " + pool.getValidationTimeout() + " ms, connectionTimeout " + TIMEOUT);
      warm(store); // a connection in the pool, validated on its next borrow
      try {
        Thread.sleep(600); // past HikariCP's 500 ms window in which a borrow skips validation
      } catch (InterruptedException e) {
        throw new IllegalStateException(e);
      }
      long started = System.nanoTime();
      StoreUnavailableException e =
          assertThrows(
              StoreUnavailableException.class,
              () ->
                  pauseWhile(
                      () ->
                          store.claim(
                              new OrderSnapshot("cs_paused", "esim", 1, null, 100, "usd"),
                              Duration.ofMinutes(2))));
      long millis = (System.nanoTime() - started) / 1_000_000;
      System.out.println("postgres: a claim on a paused server failed after " + millis + " ms");
      assertFalse(e.outcomeUnknown(), "no connection was lent, nothing sent: " + e.getMessage());
    }
  }

  /** Borrows and returns a connection, retrying while a loaded machine is slow to connect. */
  private static void warm(PostgresOrderStore store) {
    for (int attempt = 1; ; attempt++) {
      try {
        store.get("cs_warm");
        return;
      } catch (StoreUnavailableException e) {
        if (attempt == 10) {
          throw e;
        }
      }
    }
  }

  /** Runs {@code call} while the server is paused, then resumes it. */
  private static void pauseWhile(Runnable call) {
    server.pause();
    try {
      call.run();
    } finally {
      server.resume();
    }
  }
}
