package org.fencekit.store.mysql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.fencekit.store.ClaimId;
import org.fencekit.store.ClaimResult;
import org.fencekit.store.OrderRecord;
import org.fencekit.store.WriteResult;
import org.fencekit.testsupport.TestMysql;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What MySQL's server time needs beyond the TCK's real-time group: a session time zone far from
 * UTC, the time read after a row lock wait (not at the statement's start), milliseconds kept, and
 * the fast path's single statements (which take the client's time) not used.
 */
class MysqlServerTimeTest extends MysqlStoreTestSupport {

  private static final Clock HOUR_BEHIND = Clock.offset(Clock.systemUTC(), Duration.ofHours(-1));

  /** A store on the server's time over a user's pool whose sessions are in {@code timeZone}. */
  private MysqlOrderStore serverTimeStore(String timeZone, Clock clientClock) {
    HikariDataSource pool = track(new HikariDataSource());
    pool.setJdbcUrl(database.jdbcUrl());
    pool.setMaximumPoolSize(2);
    pool.setTransactionIsolation("TRANSACTION_READ_COMMITTED");
    pool.setConnectionInitSql("SET time_zone = '" + timeZone + "'");
    return store(
        MysqlOrderStore.builder()
            .dataSource(pool)
            .createSchema(true)
            .clock(clientClock)
            .serverTime(true));
  }

  @ParameterizedTest(name = "session time zone {0}")
  @ValueSource(strings = {"+09:00", "-11:00", "+00:00"})
  @DisplayName(
      "in any session time zone, claims and completes from a host an hour behind are stored at the server's UTC time, to the millisecond")
  void sessionTimeZoneAndPrecision(String timeZone) {
    MysqlOrderStore store = serverTimeStore(timeZone, HOUR_BEHIND);
    List<Instant> times = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      String id = sid("tz");
      ClaimResult.Claimed claim =
          assertInstanceOf(ClaimResult.Claimed.class, store.claim(snapshot(id), LEASE));
      assertNearHost(claim.record().claimedAt(), "claimedAt of " + id);
      assertEquals(
          LEASE, Duration.between(claim.record().claimedAt(), claim.record().leaseExpiresAt()));
      OrderRecord completed =
          assertInstanceOf(WriteResult.Written.class, store.complete(id, claim.claimId(), ITEM))
              .record();
      assertNearHost(completed.updatedAt(), "updatedAt of the complete of " + id);
      times.add(claim.record().claimedAt());
      times.add(completed.updatedAt());
    }
    assertTrue(
        times.stream().anyMatch(t -> t.toEpochMilli() % 1000 != 0),
        "every time is a whole second, milliseconds lost: " + times);
  }

  @Test
  @DisplayName(
      "a claim that waited for another transaction's row lock decides at the time it got the lock, not when it was sent")
  void timeIsReadAfterTheLockWait() throws Exception {
    MysqlOrderStore store = serverTimeStore("+00:00", Clock.systemUTC());
    String id = sid("wait");
    ClaimId first = claimed(store, id);
    assertInstanceOf(WriteResult.Written.class, store.fail(id, first, "gateway timeout"));
    long releasedAt;
    CompletableFuture<ClaimResult> waiting;
    try (Connection holder = TestMysql.connect(database.jdbcUrl())) {
      holder.setAutoCommit(false);
      try (PreparedStatement lock =
          holder.prepareStatement(
              "SELECT fence FROM fencekit_orders WHERE session_id = ? FOR UPDATE")) {
        lock.setString(1, id);
        lock.executeQuery().close();
      }
      waiting = CompletableFuture.supplyAsync(() -> store.claim(snapshot(id), LEASE));
      awaitLockWait(holder);
      Thread.sleep(50); // not a lease: sets the release apart from when the claim was sent
      releasedAt = serverMillis(holder);
      holder.rollback();
    }
    ClaimResult.Claimed second =
        assertInstanceOf(ClaimResult.Claimed.class, waiting.get(30, TimeUnit.SECONDS));
    assertEquals(2, second.claimId().fence());
    assertTrue(
        !second.record().claimedAt().isBefore(Instant.ofEpochMilli(releasedAt)),
        "the claim that got the row lock after "
            + Instant.ofEpochMilli(releasedAt)
            + " decided at "
            + second.record().claimedAt()
            + ", before it held the lock");
  }

  @Test
  @DisplayName("with server time the store takes the locking transactions only, and says so")
  void noFastPath() {
    MysqlOrderStore store = serverTimeStore("+00:00", Clock.systemUTC());
    assertTrue(store.toString().contains("locking transactions only"), store.toString());
    assertTrue(store.toString().contains("server time"), store.toString());
  }

  /** Waits until a transaction in this test's database waits for a row lock. */
  private static void awaitLockWait(Connection connection) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (System.nanoTime() < deadline) {
      try (ResultSet rows =
          connection
              .createStatement()
              .executeQuery(
                  "SELECT COUNT(*) FROM information_schema.innodb_trx t"
                      + " JOIN information_schema.processlist p ON p.id = t.trx_mysql_thread_id"
                      + " WHERE t.trx_state = 'LOCK WAIT' AND p.db = DATABASE()")) {
        rows.next();
        if (rows.getInt(1) > 0) {
          return;
        }
      }
      // polling the server's state, not waiting for a lease; InnoDB refreshes innodb_trx only for
      // a read more than 100 ms after the one before, so faster polling would never see the wait
      Thread.sleep(150);
    }
    throw new AssertionError("the claim never waited for the row lock");
  }

  private static long serverMillis(Connection connection) throws SQLException {
    try (ResultSet rows =
        connection
            .createStatement()
            .executeQuery(
                "SELECT TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP(6))"
                    + " DIV 1000")) {
      rows.next();
      return rows.getLong(1);
    }
  }

  private static void assertNearHost(Instant instant, String what) {
    Duration off = Duration.between(Instant.now(), instant).abs();
    assertTrue(
        off.compareTo(Duration.ofMinutes(1)) < 0,
        what
            + " is "
            + instant
            + ", "
            + off
            + " from this host's clock: not the server's UTC time?");
  }
}
