package org.fencekit.store.mysql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Optional;
import javax.sql.DataSource;
import org.fencekit.store.ClaimId;
import org.fencekit.store.OrderRecord;
import org.fencekit.store.WriteResult;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The fast path's claim + complete of a fresh order sends the server two statements and nothing
 * else: the {@code INSERT} and the {@code UPDATE}, each in auto-commit; no {@code SET autocommit},
 * isolation or {@code COMMIT} around them, and no read after the complete of a claim the same store
 * granted. A complete of another store's claim reads the row back (a third statement), and answers
 * what is stored. Counted as the server counts them ({@code Questions} of the pool's only
 * connection's session), over a DataSource at the driver's defaults and from a URL.
 */
class MysqlRoundTripTest extends MysqlStoreTestSupport {

  private static final int ORDERS = 5;

  @Test
  @DisplayName("over a DataSource at the driver's defaults: 2 statements per claim + complete")
  void overADataSource() {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(database.jdbcUrl());
    config.setMaximumPoolSize(1);
    HikariDataSource pool = track(new HikariDataSource(config));
    MysqlOrderStore store =
        store(MysqlOrderStore.builder().dataSource(pool).createSchema(true).clock(clock));
    assertEquals(2.0, statementsPerOp(store, pool));
  }

  @Test
  @DisplayName("from a URL: 2 statements per claim + complete")
  void fromAUrl() {
    MysqlOrderStore store = store(pooled().maximumPoolSize(1));
    assertEquals(2.0, statementsPerOp(store, store.storage().dataSource()));
  }

  @Test
  @DisplayName(
      "a complete of another store's claim reads the row back: 2 statements, and the answer is what"
          + " is stored")
  void anotherStoresClaim() {
    MysqlOrderStore claimer = store(pooled());
    MysqlOrderStore completer = store(pooled().maximumPoolSize(1));
    DataSource only = completer.storage().dataSource();
    String sid = sid("other");
    ClaimId claimId = claimed(claimer, sid);
    completer.get(sid); // warms the connection up
    long before = questions(only);
    long reading = questions(only) - before;
    long start = questions(only);
    WriteResult.Written written =
        assertInstanceOf(WriteResult.Written.class, completer.complete(sid, claimId, ITEM));
    assertEquals(2, questions(only) - start - reading, "the UPDATE and the read back");
    assertEquals(Optional.of(written.record()), claimer.get(sid));
  }

  @Test
  @DisplayName(
      "a complete answered without a read answers what is stored, though another store extended"
          + " the claim with its token and time passed")
  void extendedElsewhere() {
    MysqlOrderStore owner = store(pooled());
    MysqlOrderStore other = store(pooled());
    String sid = sid("extended");
    ClaimId claimId = claimed(owner, sid);
    clock.advance(Duration.ofSeconds(5));
    assertInstanceOf(WriteResult.Written.class, other.extend(sid, claimId, Duration.ofMinutes(10)));
    clock.advance(Duration.ofSeconds(5));
    WriteResult.Written written =
        assertInstanceOf(WriteResult.Written.class, owner.complete(sid, claimId, ITEM));
    assertEquals(Optional.of(written.record()), other.get(sid));
    assertEquals(
        WriteResult.Written.class,
        owner.complete(sid, claimId, ITEM).getClass(),
        "a retry is a replay");
  }

  @Test
  @DisplayName(
      "a complete of a remembered claim whose order another store claimed since is superseded,"
          + " writes nothing over the new claim and keeps the item as an orphan")
  void rememberedClaimSuperseded() {
    MysqlOrderStore owner = store(pooled());
    MysqlOrderStore other = store(pooled());
    String sid = sid("moved");
    ClaimId stale = claimed(owner, sid);
    clock.advance(LEASE.plusSeconds(1));
    ClaimId current = claimed(other, sid);
    OrderRecord before = other.get(sid).orElseThrow();
    assertInstanceOf(WriteResult.Superseded.class, owner.complete(sid, stale, ITEM));
    assertEquals(Optional.of(before), other.get(sid));
    assertEquals(current, before.claimId());
    assertEquals(1, other.orphans(sid).size(), "the stale owner's item, kept as an orphan");
  }

  /** Statements the server ran per claim + complete, after two to warm the connection up. */
  private double statementsPerOp(MysqlOrderStore store, DataSource only) {
    claimAndComplete(store, 2);
    long before = questions(only);
    long reading = questions(only) - before; // what one read costs: the SHOW, the pool's own
    long start = questions(only);
    claimAndComplete(store, ORDERS);
    return (double) (questions(only) - start - reading) / ORDERS;
  }

  private void claimAndComplete(MysqlOrderStore store, int orders) {
    for (int i = 0; i < orders; i++) {
      String sid = sid("trips");
      assertInstanceOf(WriteResult.Written.class, store.complete(sid, claimed(store, sid), ITEM));
    }
  }

  /** The session's statement count on the pool's only connection. */
  private static long questions(DataSource only) {
    try (Connection connection = only.getConnection();
        Statement statement = connection.createStatement();
        ResultSet row = statement.executeQuery("SHOW SESSION STATUS LIKE 'Questions'")) {
      row.next();
      return row.getLong(2);
    } catch (SQLException e) {
      throw new IllegalStateException("reading Questions failed: " + e.getMessage(), e);
    }
  }
}
