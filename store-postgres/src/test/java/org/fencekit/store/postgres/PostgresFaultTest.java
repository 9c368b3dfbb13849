package org.fencekit.store.postgres;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariDataSource;
import java.time.Duration;
import org.fencekit.history.ManualClock;
import org.fencekit.store.OrderSnapshot;
import org.fencekit.store.StoreUnavailableException;
import org.fencekit.store.jdbc.ServerFaultTest;
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
class PostgresFaultTest extends ServerFaultTest<PostgresOrderStore> {

  private static OwnPostgres server;

  PostgresFaultTest() {
    super("postgres");
  }

  @BeforeAll
  static void startServer() {
    server = OwnPostgres.start();
    createTables(PostgresOrderStore.builder(), server.jdbcUrl()).build().close();
  }

  @AfterAll
  static void stopServer() {
    if (server != null) {
      server.close();
    }
  }

  @Override
  protected PostgresOrderStore store(ManualClock clock, boolean fastPath) {
    return underFault(PostgresOrderStore.builder(), server.jdbcUrl(), clock)
        .singleStatementFastPath(fastPath)
        .build();
  }

  @Test
  @DisplayName("pg_terminate_backend of the store's connections six times, fast path on")
  void terminateBackends() {
    assertNoViolations("terminate-backends", true, sixTimes(server::terminateBackends));
  }

  @Test
  @DisplayName("pg_terminate_backend of the store's connections six times, locking transactions")
  void terminateBackendsLocking() {
    assertNoViolations("terminate-backends", false, sixTimes(server::terminateBackends));
  }

  @Test
  @DisplayName("an immediate restart (pg_ctl stop -m immediate, then start), fast path on")
  void immediateRestart() {
    assertNoViolations("immediate-restart", true, once(server::restartImmediately));
  }

  @Test
  @DisplayName("an immediate restart, locking transactions")
  void immediateRestartLocking() {
    assertNoViolations("immediate-restart", false, once(server::restartImmediately));
  }

  @Test
  @DisplayName("the server paused (SIGSTOP) for 2.5 s, past the 1 s query and connection timeouts")
  void paused() {
    assertNoViolations("sigstop", true, once(() -> server.pauseFor(2500)));
  }

  @Test
  @DisplayName("the orders table locked for 2.5 s, past the 1 s query timeout")
  void tableLocked() {
    assertNoViolations(
        "table-lock",
        true,
        once(() -> server.lockTableFor(PostgresOrderStore.DEFAULT_ORDERS_TABLE, 2500)));
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
