package org.fencekit.store.mysql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;
import org.fencekit.store.WriteResult;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The fast path's claim + complete of a fresh order sends the server its three statements and
 * nothing else: the {@code INSERT}, the {@code UPDATE} and the {@code SELECT} that reads the
 * completed row back, each in auto-commit; no {@code SET autocommit}, isolation or {@code COMMIT}
 * around them. Counted as the server counts them ({@code Questions} of the pool's only connection's
 * session), over a DataSource at the driver's defaults and from a URL.
 */
class MysqlRoundTripTest extends MysqlStoreTestSupport {

  private static final int ORDERS = 5;

  @Test
  @DisplayName("over a DataSource at the driver's defaults: 3 statements per claim + complete")
  void overADataSource() {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(database.jdbcUrl());
    config.setMaximumPoolSize(1);
    HikariDataSource pool = track(new HikariDataSource(config));
    MysqlOrderStore store =
        store(MysqlOrderStore.builder().dataSource(pool).createSchema(true).clock(clock));
    assertEquals(3.0, statementsPerOp(store, pool));
  }

  @Test
  @DisplayName("from a URL: 3 statements per claim + complete")
  void fromAUrl() {
    MysqlOrderStore store = store(pooled().maximumPoolSize(1));
    assertEquals(3.0, statementsPerOp(store, store.storage().dataSource()));
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
