package org.fencekit.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.fencekit.history.ManualClock;
import org.fencekit.store.ClaimId;
import org.fencekit.store.ClaimResult;
import org.fencekit.store.Item;
import org.fencekit.store.OrderRecord;
import org.fencekit.store.OrderSnapshot;
import org.fencekit.store.OrderStatus;
import org.fencekit.store.OrderStore;
import org.fencekit.store.Orphan;
import org.fencekit.store.WriteResult;
import org.fencekit.store.memory.MemoryOrderStore;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The replay tells a fenced store from one that only has a lease. */
class IncidentReplayTest {

  @Test
  @DisplayName("every scenario holds on the memory store")
  void memoryHolds() throws Exception {
    ManualClock clock = new ManualClock(Instant.parse("2026-09-14T12:00:00Z"));
    List<Replay.Outcome> outcomes =
        new IncidentReplay(new MemoryOrderStore(clock), clock).replayAll();
    assertEquals(7, outcomes.size());
    outcomes.forEach(o -> assertTrue(o.held(), o.toString()));
  }

  @Test
  @DisplayName("a store with a lease but no fence is caught: the incident lands")
  void leaseOnlyLands() throws Exception {
    ManualClock clock = new ManualClock(Instant.parse("2026-09-14T12:00:00Z"));
    List<Replay.Outcome> outcomes =
        new IncidentReplay(new LeaseOnlyStore(clock), clock).replayAll();
    Replay.Outcome incident = outcomes.get(0);
    assertFalse(incident.held(), incident.toString());
    assertTrue(incident.detail().contains("a third charge"), incident.detail());
  }

  @Test
  @DisplayName(
      "the replay prints a table for the embedded stores, explains held and LANDED, and exits 0")
  void mainJob() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    int status =
        Main.run(
            new String[] {"--replay-only"},
            new PrintStream(bytes, true, StandardCharsets.UTF_8),
            Map.of());
    String out = bytes.toString(StandardCharsets.UTF_8);
    assertEquals(0, status, out);
    assertTrue(
        out.contains("| scenario") && out.contains("| memory | sqlite | sqlite-normal |"), out);
    assertTrue(out.contains("held: the store did what the contract says"), out);
    assertFalse(out.contains("| LANDED"), out);
    assertTrue(out.contains("postgres: left out, FENCEKIT_POSTGRES_URL is not set"), out);
  }

  /** The seed's handler before the fix: a lease, and writes that never check the token. */
  private static final class LeaseOnlyStore implements OrderStore {
    private final java.time.Clock clock;
    private final Map<String, OrderRecord> orders = new ConcurrentHashMap<>();

    LeaseOnlyStore(java.time.Clock clock) {
      this.clock = clock;
    }

    @Override
    public synchronized ClaimResult claim(OrderSnapshot snapshot, Duration lease) {
      Instant now = clock.instant();
      OrderRecord r = orders.get(snapshot.sessionId());
      if (r != null && r.status() == OrderStatus.PROVISIONED) {
        return new ClaimResult.Provisioned(r);
      }
      if (r != null && r.leaseLiveAt(now)) {
        return new ClaimResult.InFlight(r);
      }
      long fence = r == null ? 1 : r.fence() + 1;
      ClaimId id = new ClaimId(fence, ClaimId.newNonce());
      OrderRecord next =
          new OrderRecord(
              snapshot,
              OrderStatus.PENDING,
              null,
              null,
              id,
              now,
              now.plus(lease),
              fence,
              null,
              now);
      orders.put(snapshot.sessionId(), next);
      return new ClaimResult.Claimed(id, next);
    }

    private synchronized WriteResult settle(
        String sessionId, ClaimId claimId, OrderStatus status, Item item, String error) {
      OrderRecord r = orders.get(sessionId);
      OrderRecord next =
          new OrderRecord(
              r.snapshot(),
              status,
              item,
              error,
              null,
              null,
              null,
              r.fence(),
              claimId,
              clock.instant());
      orders.put(sessionId, next);
      return new WriteResult.Written(next);
    }

    @Override
    public WriteResult complete(String sessionId, ClaimId claimId, Item item) {
      return settle(sessionId, claimId, OrderStatus.PROVISIONED, item, null);
    }

    @Override
    public WriteResult fail(String sessionId, ClaimId claimId, String error) {
      return settle(sessionId, claimId, OrderStatus.FAILED, null, error);
    }

    @Override
    public WriteResult extend(String sessionId, ClaimId claimId, Duration lease) {
      return new WriteResult.Written(orders.get(sessionId));
    }

    @Override
    public Optional<OrderRecord> get(String sessionId) {
      return Optional.ofNullable(orders.get(sessionId));
    }

    @Override
    public List<Orphan> orphans(String sessionId) {
      return new ArrayList<>();
    }

    @Override
    public void close() {}
  }
}
