package org.fencekit.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import org.fencekit.store.ClaimId;
import org.fencekit.store.ClaimResult;
import org.fencekit.store.ForwardingOrderStore;
import org.fencekit.store.OrderSnapshot;
import org.fencekit.store.OrderStore;
import org.fencekit.store.WriteResult;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * How {@link HotLock} counts a lost attempt, one call at a time, with the other attempt played by
 * the test: a brief run's threads cannot be made to meet (on a loaded machine with few cores one
 * thread may win and settle, or lock and unlock, between every other thread's calls), so the loss
 * is set up here, not hoped for ({@link HotLockTest} runs the benchmark itself).
 */
class HotLockOutcomesTest {

  private final HotLock.Wins wins = new HotLock.Wins();
  private OrderStore memory;
  private OtherAttempt store;
  private HotSlots hot;

  @BeforeEach
  void open() {
    memory = StoreType.MEMORY.open(new BenchClock(), Namespace.fresh(), Map.of(), 1);
    store = new OtherAttempt(memory);
    hot = new HotSlots(Orders.newRunPrefix() + "hotlock_", 1);
    wins.reset();
  }

  @AfterEach
  void close() {
    memory.close();
  }

  @Test
  @DisplayName(
      "a claim of the order another attempt holds is lost; once that attempt fails, the next claim"
          + " wins and its settle is written, on the same order")
  void claimLostWhileHeld() {
    OrderSnapshot order = hot.at(0);
    ClaimId other = claimed(order);
    store.onRefusal = () -> Orders.settle(memory, order.sessionId(), other, false);

    assertInstanceOf(WriteResult.Written.class, HotLock.claimWon(store, hot, wins));
    assertEquals(1, wins.lost, "the in-flight claim");
    assertEquals(2, store.claims, "the lost claim, then the won one");
    assertEquals(order, hot.at(0), "a failed order stays the hot one");
  }

  @Test
  @DisplayName(
      "a claim of an order completed elsewhere is lost and a fresh order takes its place, whose"
          + " claim wins")
  void claimLostToAComplete() {
    OrderSnapshot order = hot.at(0);
    Orders.settle(memory, order.sessionId(), claimed(order), true);

    assertInstanceOf(WriteResult.Written.class, HotLock.claimWon(store, hot, wins));
    assertEquals(1, wins.lost, "the provisioned claim");
    assertEquals(2, store.claims, "the lost claim, then the won one");
    assertNotEquals(order.sessionId(), hot.at(0).sessionId(), "the provisioned order is replaced");
  }

  @Test
  @DisplayName(
      "ShedLock's hot lock on PostgreSQL, held by another: the attempt is lost; once it is released,"
          + " the next attempt wins")
  void lockLostWhileHeld() throws SQLException {
    Map<String, String> env = TestServers.env(Server.POSTGRES);
    String url = env.get(Server.POSTGRES.variable());
    Namespace namespace = Namespace.fresh();
    String table = namespace.schema() + ".shedlock";
    PeerLock library = null;
    Server.useEnvironment(env);
    try (Connection other = DriverManager.getConnection(url);
        Statement sql = other.createStatement()) {
      library = Peer.SHEDLOCK_JDBC.open(namespace, env, 1);
      PeerLock.Attempt attempt = library.hot();
      assertTrue(attempt.tryLockUnlock(), "the first lock of the name, with no one holding it");
      // the other holder's lock: ShedLock's row, held a day past its lock_until (the JVM's local
      // time, as ShedLock writes it), given back once an attempt found it held
      String hold = "UPDATE " + table + " SET lock_until = lock_until + interval '1 day'";
      String release = "UPDATE " + table + " SET lock_until = lock_until - interval '1 day'";
      assertEquals(1, sql.executeUpdate(hold));
      int[] attempts = {0};
      HotLock.Contender contender = new HotLock.Contender();
      contender.attempt =
          () -> {
            boolean won = attempt.tryLockUnlock();
            assertTrue(++attempts[0] <= 2, "attempts go on once the lock is free");
            if (!won) {
              try {
                sql.executeUpdate(release);
              } catch (SQLException e) {
                throw new IllegalStateException(e);
              }
            }
            return won;
          };

      HotLock.lockWon(contender, wins);
      assertEquals(1, wins.lost, "the attempt that found the lock held");
      assertEquals(2, attempts[0], "the lost attempt, then the won one");
    } finally {
      Namespace.closeThenDrop(library, namespace, Server.POSTGRES);
      Server.useEnvironment(null);
    }
  }

  private ClaimId claimed(OrderSnapshot order) {
    return assertInstanceOf(
            ClaimResult.Claimed.class, memory.claim(order, ClaimCompleteBenchmark.LEASE))
        .claimId();
  }

  /**
   * The memory store, with what the other attempt does once the benchmark's claim is refused, done
   * right after that refusal; a benchmark that claimed on and on would fail here, not hang.
   */
  private static final class OtherAttempt extends ForwardingOrderStore {
    Runnable onRefusal;
    int claims;

    OtherAttempt(OrderStore store) {
      super(store);
    }

    @Override
    public ClaimResult claim(OrderSnapshot snapshot, Duration lease) {
      assertTrue(++claims <= 2, "claims go on once the order is free: " + claims);
      ClaimResult result = delegate().claim(snapshot, lease);
      if (!(result instanceof ClaimResult.Claimed) && onRefusal != null) {
        onRefusal.run();
        onRefusal = null;
      }
      return result;
    }
  }
}
