package org.fencekit.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.util.List;
import java.util.Map;
import org.fencekit.store.ClaimResult;
import org.fencekit.store.OrderSnapshot;
import org.fencekit.store.WriteResult;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * How {@link HotOrderBenchmark} counts each way a call ends, one call at a time on a memory store,
 * with the other attempt played by the test: a brief run's threads cannot be made to meet (on a
 * loaded machine with few cores one thread may claim and settle between every other thread's
 * calls), so which outcome a call meets is set up here, not hoped for.
 */
class HotOrderOutcomesTest {

  private final BackendState backend = new BackendState();
  private final HotOrderBenchmark.HotOrders hot = new HotOrderBenchmark.HotOrders();
  private final HotOrderBenchmark.Outcomes outcomes = new HotOrderBenchmark.Outcomes();
  private final HotOrderBenchmark benchmark = new HotOrderBenchmark();

  @BeforeEach
  void open() {
    backend.backend = StoreType.MEMORY;
    backend.clock = new BenchClock();
    backend.runPrefix = Orders.newRunPrefix();
    backend.store = StoreType.MEMORY.open(backend.clock, Namespace.fresh(), Map.of(), 1);
    hot.orders = 1;
    hot.leaseMillis = 60_000;
    hot.create(backend);
    outcomes.reset();
  }

  @AfterEach
  void close() {
    backend.store.close();
  }

  private List<Long> counts() {
    return List.of(
        outcomes.claimed,
        outcomes.inFlight,
        outcomes.provisioned,
        outcomes.written,
        outcomes.superseded);
  }

  @Test
  @DisplayName(
      "a call on an order another attempt holds is in-flight and settles nothing; once that"
          + " attempt fails, the next call claims and its settle is written")
  void inFlightThenClaimed() {
    OrderSnapshot order = hot.slots.at(0);
    ClaimResult.Claimed other =
        assertInstanceOf(ClaimResult.Claimed.class, backend.store.claim(order, hot.lease));

    assertInstanceOf(ClaimResult.InFlight.class, benchmark.claimAndSettle(backend, hot, outcomes));
    assertEquals(List.of(0L, 1L, 0L, 0L, 0L), counts(), "claimed, in-flight, provisioned...");

    assertInstanceOf(
        WriteResult.Written.class,
        Orders.settle(backend.store, order.sessionId(), other.claimId(), false));
    assertInstanceOf(WriteResult.Written.class, benchmark.claimAndSettle(backend, hot, outcomes));
    assertEquals(List.of(1L, 1L, 0L, 1L, 0L), counts(), "claimed, in-flight, provisioned...");
  }

  @Test
  @DisplayName(
      "a call on an order completed elsewhere counts provisioned and puts a fresh order in its slot;"
          + " every eighth win completes and replaces the order too")
  void provisionedAndReplaced() {
    OrderSnapshot order = hot.slots.at(0);
    ClaimResult.Claimed other =
        assertInstanceOf(ClaimResult.Claimed.class, backend.store.claim(order, hot.lease));
    Orders.settle(backend.store, order.sessionId(), other.claimId(), true);

    benchmark.claimAndSettle(backend, hot, outcomes);
    assertEquals(List.of(0L, 0L, 1L, 0L, 0L), counts(), "claimed, in-flight, provisioned...");
    OrderSnapshot fresh = hot.slots.at(0);
    assertNotEquals(
        order.sessionId(), fresh.sessionId(), "the provisioned order stays in its slot");

    for (int call = 1; call <= HotOrderBenchmark.COMPLETE_EVERY; call++) {
      benchmark.claimAndSettle(backend, hot, outcomes);
    }
    assertEquals(
        List.of(8L, 0L, 1L, 8L, 0L), counts(), "eight wins, each settle written, none refused");
    assertNotEquals(
        fresh.sessionId(), hot.slots.at(0).sessionId(), "the eighth win completed the order");
  }
}
