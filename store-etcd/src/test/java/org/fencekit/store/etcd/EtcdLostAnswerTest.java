package org.fencekit.store.etcd;

import static org.fencekit.store.etcd.EtcdStores.claimed;
import static org.fencekit.store.etcd.EtcdStores.snapshot;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.function.Supplier;
import org.fencekit.store.ClaimId;
import org.fencekit.store.ClaimResult;
import org.fencekit.store.Item;
import org.fencekit.store.OrderRecord;
import org.fencekit.store.OrderSnapshot;
import org.fencekit.store.OrderStatus;
import org.fencekit.store.StoreUnavailableException;
import org.fencekit.store.WriteResult;
import org.fencekit.testsupport.TestEtcd;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A transaction whose answer is lost (after etcd applied it, or before it was sent) is answered
 * with its true outcome: the store reads the order back and tells its own write by the write id,
 * even when another write followed it; when nothing can be read back in time it says the outcome is
 * unknown, and only then.
 */
@DisplayName("EtcdOrderStore answers a transaction whose answer was lost with what really happened")
class EtcdLostAnswerTest {

  @RegisterExtension static final TestEtcd.ClassKeys etcd = TestEtcd.cluster("lost-answer");

  private static final Duration LEASE = Duration.ofSeconds(30);
  @RegisterExtension final EtcdStores stores = new EtcdStores(etcd);
  private final LoseAnswers lose = new LoseAnswers();

  private EtcdOrderStore store(Duration timeout) {
    return stores.open(EtcdOrderStore.builder().timeout(timeout).interceptor(lose));
  }

  private EtcdOrderStore store() {
    return store(Duration.ofSeconds(5));
  }

  /** A second store of its own client, which loses nothing. */
  private EtcdOrderStore peer() {
    return stores.open(EtcdOrderStore.builder());
  }

  @Test
  @DisplayName("a claim whose answer is lost after it landed answers Claimed with the stored token")
  void claimLandedAnswerLost() {
    EtcdOrderStore store = store();
    OrderSnapshot order = snapshot("lost");
    lose.loseAfterCommit(() -> {});
    ClaimId claimId = claimed(store.claim(order, LEASE));
    OrderRecord stored = store.get(order.sessionId()).orElseThrow();
    assertEquals(claimId, stored.claimId(), "the token answered must be the one stored");
    assertEquals(1, stored.fence(), "one claim landed, not two");
  }

  @Test
  @DisplayName(
      "a first claim whose answer is lost, then more writes by another store than the store reads"
          + " back one by one: still Claimed, told by the order's creation")
  void claimLandedThenManyWrites() {
    EtcdOrderStore store = store();
    EtcdOrderStore peer = peer();
    OrderSnapshot order = snapshot("lost");
    lose.loseAfterCommit(
        () -> {
          ClaimId landed = peer.get(order.sessionId()).orElseThrow().claimId();
          for (int i = 0; i < 66; i++) { // the look-back is 64 versions
            assertInstanceOf(
                WriteResult.Written.class, peer.extend(order.sessionId(), landed, LEASE));
          }
        });
    ClaimId claimId = claimed(store.claim(order, LEASE));
    OrderRecord stored = store.get(order.sessionId()).orElseThrow();
    assertEquals(claimId, stored.claimId(), "the token answered must be the one stored");
    assertEquals(1, stored.fence(), "one claim landed, not two");
  }

  @Test
  @DisplayName(
      "a complete whose answer is lost after it landed answers Written and keeps no orphan")
  void completeLandedAnswerLost() {
    EtcdOrderStore store = store();
    OrderSnapshot order = snapshot("lost");
    ClaimId claimId = claimed(store.claim(order, LEASE));
    lose.loseAfterCommit(() -> {});
    WriteResult result = store.complete(order.sessionId(), claimId, new Item("po-1", "code"));
    assertInstanceOf(WriteResult.Written.class, result, "the complete that landed");
    assertEquals(OrderStatus.PROVISIONED, store.get(order.sessionId()).orElseThrow().status());
    assertTrue(store.orphans(order.sessionId()).isEmpty(), "its own complete is no orphan");
  }

  @Test
  @DisplayName(
      "a fail whose answer is lost, then a takeover before the store reads back: still Written,"
          + " found in the order's earlier versions")
  void failLandedThenTakenOver() {
    EtcdOrderStore store = store();
    EtcdOrderStore peer = peer();
    OrderSnapshot order = snapshot("lost");
    ClaimId first = claimed(store.claim(order, LEASE));
    ClaimId[] second = new ClaimId[1];
    lose.loseAfterCommit(() -> second[0] = claimed(peer.claim(order, LEASE)));
    WriteResult result = store.fail(order.sessionId(), first, "provider said no");
    assertInstanceOf(
        WriteResult.Written.class,
        result,
        "the fail landed before the takeover: Superseded would be a wrong answer");
    OrderRecord stored = store.get(order.sessionId()).orElseThrow();
    assertEquals(second[0], stored.claimId(), "the takeover holds the order");
    assertEquals(1, stored.failures(), "the fail counted once");
  }

  @Test
  @DisplayName(
      "a claim that offers another order, its answer lost after the mismatch was recorded, answers"
          + " Mismatch and is recorded once")
  void mismatchLandedAnswerLost() {
    EtcdOrderStore store = store();
    OrderSnapshot order = snapshot("lost");
    claimed(store.claim(order, LEASE));
    OrderSnapshot other =
        new OrderSnapshot(order.sessionId(), "another-product", 1, null, 1000, "EUR");
    lose.loseAfterCommit(() -> {});
    assertInstanceOf(ClaimResult.Mismatch.class, store.claim(other, LEASE), "another order");
    long recorded =
        store.mismatches(null, 1000).items().stream()
            .filter(m -> m.sessionId().equals(order.sessionId()))
            .count();
    assertEquals(1, recorded, "the mismatch is recorded once, not once per attempt");
  }

  @Test
  @DisplayName("a claim lost before it was sent is decided again and lands once")
  void claimNeverSent() {
    EtcdOrderStore store = store();
    OrderSnapshot order = snapshot("lost");
    lose.loseBeforeSending(() -> {});
    ClaimId claimId = claimed(store.claim(order, LEASE));
    OrderRecord stored = store.get(order.sessionId()).orElseThrow();
    assertEquals(claimId, stored.claimId());
    assertEquals(1, stored.fence());
  }

  @Test
  @DisplayName(
      "a complete lost before it was sent while another attempt took over answers Superseded and"
          + " keeps the orphan")
  void completeNeverSentThenTakenOver() {
    EtcdOrderStore store = store();
    EtcdOrderStore peer = peer();
    OrderSnapshot order = snapshot("lost");
    ClaimId first = claimed(store.claim(order, LEASE));
    lose.loseBeforeSending(
        () -> {
          stores.clock.advance(LEASE.plusMillis(1));
          claimed(peer.claim(order, LEASE));
        });
    WriteResult result = store.complete(order.sessionId(), first, new Item("po-2", "code"));
    assertInstanceOf(WriteResult.Superseded.class, result, "the complete never landed");
    assertEquals(1, store.orphans(order.sessionId()).size(), "its purchase is kept as an orphan");
  }

  @Test
  @DisplayName(
      "when nothing can be read back in time the call says its outcome is unknown; retrying it"
          + " answers the truth")
  void unknownWhenNothingAnswers() {
    // the claim and the retry go through a peer with the usual deadline: only the call under test
    // needs 200 ms (it keeps trying for 3 x 200 ms while nothing answers), and on a loaded machine
    // any other call with it can fail by chance (a client's first call loads gRPC and connects)
    EtcdOrderStore peer = peer();
    EtcdOrderStore store = store(Duration.ofMillis(200));
    OrderSnapshot order = snapshot("lost");
    ClaimId claimId = claimed(peer.claim(order, LEASE));
    // the 200 ms store answers once before the fault, however long it takes to connect, and so
    // knows the order as after a claim of its own: its complete goes straight to its transaction
    assertInstanceOf(
        ClaimResult.InFlight.class, answered(() -> store.claim(order, LEASE)), "the peer's claim");
    lose.loseAfterCommit(() -> lose.down(true));
    Item item = new Item("po-3", "code");
    StoreUnavailableException thrown =
        assertThrows(
            StoreUnavailableException.class,
            () -> store.complete(order.sessionId(), claimId, item));
    assertTrue(thrown.outcomeUnknown(), "a write was sent: " + thrown.getMessage());
    assertEquals("complete", thrown.operation());
    lose.down(false);
    assertInstanceOf(
        WriteResult.Written.class,
        peer.complete(order.sessionId(), claimId, item),
        "the retry finds its complete landed");
  }

  /**
   * {@code call}'s answer, the call made again while it throws {@link StoreUnavailableException},
   * for up to 30 s.
   */
  private static <T> T answered(Supplier<T> call) {
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (true) {
      try {
        return call.get();
      } catch (StoreUnavailableException e) {
        if (System.nanoTime() - deadline > 0) {
          throw e;
        }
      }
    }
  }

  @Test
  @DisplayName("a call that sent no write before etcd stopped answering says nothing was written")
  void nothingSentNothingWritten() {
    EtcdOrderStore store = store(Duration.ofMillis(200));
    lose.down(true);
    StoreUnavailableException thrown =
        assertThrows(StoreUnavailableException.class, () -> store.claim(snapshot("lost"), LEASE));
    assertFalse(thrown.outcomeUnknown(), thrown.getMessage());
  }
}
