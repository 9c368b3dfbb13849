package org.fencekit.store.etcd;

import static org.fencekit.store.etcd.EtcdStores.claimed;
import static org.fencekit.store.etcd.EtcdStores.snapshot;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import java.time.Duration;
import org.fencekit.store.ClaimId;
import org.fencekit.store.ClaimResult;
import org.fencekit.store.Item;
import org.fencekit.store.OrderRecord;
import org.fencekit.store.OrderSnapshot;
import org.fencekit.store.OrderStatus;
import org.fencekit.store.WriteResult;
import org.fencekit.testsupport.TestEtcd;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The common case is one round trip per operation: a first claim guesses there is no order, a
 * settle guesses the order is as this store last saw it, and each transaction's compare checks the
 * guess. A wrong guess (another store changed the order in between) costs no wrong answer: the
 * failed compare returns the order, and the decision is made again on that.
 */
@DisplayName("EtcdOrderStore decides in one round trip, and a stale guess never answers")
class EtcdRoundTripsTest {

  @RegisterExtension static final TestEtcd.ClassKeys etcd = TestEtcd.cluster("round-trips");

  private static final Duration LEASE = Duration.ofSeconds(30);
  @RegisterExtension final EtcdStores stores = new EtcdStores(etcd);
  private final CountCalls calls = new CountCalls(etcd.prefix());

  /** The store whose calls are counted. */
  private EtcdOrderStore store() {
    return stores.open(EtcdOrderStore.builder().interceptor(calls));
  }

  /** Another store on the same keys (another process), of its own client. */
  private EtcdOrderStore peer() {
    return stores.open(EtcdOrderStore.builder());
  }

  private void assertTrips(int txns, int reads, String what) {
    assertEquals(txns, calls.txns(), what + ": transactions");
    assertEquals(reads, calls.reads(), what + ": reads");
    calls.reset();
  }

  @Test
  @DisplayName("a claim + complete of a fresh order is two transactions and no read")
  void claimCompleteTwoRoundTrips() {
    EtcdOrderStore store = store();
    OrderSnapshot order = snapshot("trips");
    ClaimId claimId = claimed(store.claim(order, LEASE));
    assertTrips(1, 0, "the first claim");
    assertInstanceOf(
        WriteResult.Written.class, store.complete(order.sessionId(), claimId, new Item("po", "c")));
    assertTrips(1, 0, "the complete by the claim this store granted");
    assertEquals(OrderStatus.PROVISIONED, store.get(order.sessionId()).orElseThrow().status());
  }

  @Test
  @DisplayName(
      "a claim of an order another store holds is one transaction, answered InFlight from what"
          + " its failed compare returned")
  void claimOfAnotherStoresOrder() {
    EtcdOrderStore store = store();
    EtcdOrderStore peer = peer();
    OrderSnapshot order = snapshot("trips");
    ClaimId theirs = claimed(peer.claim(order, LEASE));
    ClaimResult result = store.claim(order, LEASE);
    assertEquals(
        theirs,
        assertInstanceOf(ClaimResult.InFlight.class, result, "the peer's lease is live")
            .record()
            .claimId());
    assertTrips(1, 0, "the claim that guessed no order");
  }

  @Test
  @DisplayName(
      "a fail from a token whose order another store completed meanwhile is Superseded: the"
          + " guess (still claimed) fails its compare, and PROVISIONED is never overwritten")
  void staleGuessAfterAnotherStoreSettled() {
    EtcdOrderStore store = store();
    EtcdOrderStore peer = peer();
    OrderSnapshot order = snapshot("trips");
    ClaimId claimId = claimed(store.claim(order, LEASE));
    Item item = new Item("po-peer", "code");
    assertInstanceOf(
        WriteResult.Written.class, peer.complete(order.sessionId(), claimId, item), "the peer");
    calls.reset();
    WriteResult result = store.fail(order.sessionId(), claimId, "provider said no");
    assertInstanceOf(
        WriteResult.Superseded.class,
        result,
        "this store last saw the order claimed by " + claimId + "; it was completed since");
    OrderRecord stored = store.get(order.sessionId()).orElseThrow();
    assertEquals(OrderStatus.PROVISIONED, stored.status(), "the complete stands");
    assertEquals(item, stored.item());
    assertTrips(1, 1, "the failed guess, whose Else read decided it (then the read above)");
  }

  @Test
  @DisplayName(
      "a complete from a token another store took over meanwhile is Superseded and keeps the"
          + " orphan, though this store last saw its own claim")
  void staleGuessAfterTakeover() {
    EtcdOrderStore store = store();
    EtcdOrderStore peer = peer();
    OrderSnapshot order = snapshot("trips");
    ClaimId first = claimed(store.claim(order, LEASE));
    stores.clock.advance(LEASE.plusMillis(1));
    ClaimId second = claimed(peer.claim(order, LEASE));
    WriteResult result = store.complete(order.sessionId(), first, new Item("po-late", "code"));
    assertInstanceOf(
        WriteResult.Superseded.class, result, "the lease ran out and " + second + " took over");
    OrderRecord stored = store.get(order.sessionId()).orElseThrow();
    assertEquals(second, stored.claimId(), "the takeover holds the order");
    assertEquals(OrderStatus.PENDING, stored.status());
    assertEquals(1, store.orphans(order.sessionId()).size(), "the late purchase is kept");
  }

  @Test
  @DisplayName(
      "a complete by a store that never saw the order reads it, and answers from that read")
  void completeOfAnUnseenOrder() {
    EtcdOrderStore store = store();
    EtcdOrderStore peer = peer();
    OrderSnapshot order = snapshot("trips");
    ClaimId claimId = claimed(peer.claim(order, LEASE));
    assertInstanceOf(
        WriteResult.Written.class,
        store.complete(order.sessionId(), claimId, new Item("po-2", "code")));
    assertTrips(1, 1, "a read, then the complete's transaction");
  }
}
