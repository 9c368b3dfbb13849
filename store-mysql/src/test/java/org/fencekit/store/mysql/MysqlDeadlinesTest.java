package org.fencekit.store.mysql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.mysql.cj.jdbc.MysqlDataSource;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import javax.sql.DataSource;
import org.fencekit.store.ClaimId;
import org.fencekit.store.OrderStatus;
import org.fencekit.store.StoreUnavailableException;
import org.fencekit.store.WriteResult;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The query timeout of the single statements, kept by the store's own deadline thread rather than
 * Connector/J's timer task per statement: no statement sets a driver timeout, one stuck past the
 * timeout is cancelled with nothing written, and the server forgets a cancel ({@code KILL QUERY})
 * that reaches a session after its statement ended, which is what lets the thread cancel safely.
 */
class MysqlDeadlinesTest extends MysqlStoreTestSupport {

  private MysqlDataSource dataSource() {
    MysqlDataSource dataSource = new MysqlDataSource();
    dataSource.setURL(database.jdbcUrl());
    return dataSource;
  }

  private static Object call(Object target, Method method, Object[] args) throws Throwable {
    try {
      return method.invoke(target, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }

  /**
   * {@code real}, recording each statement it prepares that is given a driver query timeout: the
   * statement's first line and the seconds.
   */
  private static DataSource timeoutsInto(List<String> timeouts, DataSource real) {
    return (DataSource)
        Proxy.newProxyInstance(
            MysqlDeadlinesTest.class.getClassLoader(),
            new Class<?>[] {DataSource.class},
            (proxy, method, args) -> {
              Object result = call(real, method, args);
              if (!(result instanceof Connection connection)) {
                return result;
              }
              return Proxy.newProxyInstance(
                  MysqlDeadlinesTest.class.getClassLoader(),
                  new Class<?>[] {Connection.class},
                  (c, m, a) -> {
                    Object made = call(connection, m, a);
                    if (!(made instanceof PreparedStatement statement)) {
                      return made;
                    }
                    return Proxy.newProxyInstance(
                        MysqlDeadlinesTest.class.getClassLoader(),
                        new Class<?>[] {PreparedStatement.class},
                        (s, sm, sa) -> {
                          if (sm.getName().equals("setQueryTimeout") && (int) sa[0] > 0) {
                            timeouts.add(
                                ((String) a[0]).strip().lines().findFirst().orElse("")
                                    + " "
                                    + sa[0]
                                    + " s");
                          }
                          return call(statement, sm, sa);
                        });
                  });
            });
  }

  @Test
  @DisplayName(
      "a claim and a complete on the fast path set no driver query timeout (a timer task each):"
          + " the store's deadline thread keeps it; a locking transaction's statements keep the"
          + " driver's")
  void singleStatementsLeaveTheTimeoutToTheStore() {
    List<String> timeouts = Collections.synchronizedList(new ArrayList<>());
    MysqlOrderStore store =
        store(
            MysqlOrderStore.builder()
                .dataSource(timeoutsInto(timeouts, dataSource()))
                .createSchema(true)
                .clock(clock));
    timeouts.clear(); // the migration check's transaction keeps the driver's timeout
    String sid = sid("deadlines");
    ClaimId claimId = claimed(store, sid);
    assertInstanceOf(WriteResult.Written.class, store.complete(sid, claimId, ITEM));
    assertEquals(List.of(), timeouts, "driver query timeouts set");

    String held = sid("deadlines_locked");
    assertInstanceOf(WriteResult.Written.class, store.extend(held, claimed(store, held), LEASE));
    assertEquals(2, timeouts.size(), "an extend is a locking transaction: " + timeouts);
    assertTrue(
        timeouts.stream().allMatch(t -> t.endsWith(" 30 s")),
        "a locking transaction's statements keep the driver's timeout: " + timeouts);
  }

  @Test
  @DisplayName(
      "a complete stuck behind another transaction's row lock is cancelled after the query"
          + " timeout, nothing written, and lands once the lock is gone")
  void stuckCompleteIsCancelled() throws SQLException {
    // the lock wait timeout (50 s by default) must not end the wait before the query timeout
    MysqlOrderStore store = store(pooled().queryTimeout(Duration.ofSeconds(1)));
    String sid = sid("stuck");
    ClaimId claimId = claimed(store, sid);
    try (Connection blocker = dataSource().getConnection()) {
      blocker.setAutoCommit(false);
      try (PreparedStatement lock =
          blocker.prepareStatement(
              "SELECT 1 FROM fencekit_orders WHERE session_id = ? FOR UPDATE")) {
        lock.setString(1, sid);
        lock.executeQuery().close();
      }
      StoreUnavailableException e =
          assertThrows(StoreUnavailableException.class, () -> store.complete(sid, claimId, ITEM));
      assertTrue(e.getMessage().contains("query timeout"), e.getMessage());
      blocker.rollback();
    }
    assertEquals(OrderStatus.PENDING, record(store, sid).status(), "nothing written");
    assertInstanceOf(WriteResult.Written.class, store.complete(sid, claimId, ITEM));
  }

  @Test
  @DisplayName(
      "a KILL QUERY that reaches a session between statements interrupts nothing: its next"
          + " statement runs (the store's deadline thread may cancel a statement just as it ends)")
  void aLateKillInterruptsNothing() throws SQLException {
    try (Connection session = dataSource().getConnection();
        Connection killer = dataSource().getConnection();
        Statement statement = session.createStatement()) {
      long id;
      try (ResultSet row = statement.executeQuery("SELECT CONNECTION_ID()")) {
        row.next();
        id = row.getLong(1);
      }
      try (Statement kill = killer.createStatement()) {
        kill.execute("KILL QUERY " + id);
      }
      try (ResultSet row = statement.executeQuery("SELECT 1 + 1")) {
        row.next();
        assertEquals(2, row.getInt(1), "the next statement's answer");
      }
    }
  }
}
