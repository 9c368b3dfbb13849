package org.fencekit.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import org.fencekit.store.spi.ClaimRequest;
import org.fencekit.store.spi.OrderStateMachine;
import org.fencekit.store.spi.WriteRequest;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The pure state machine, case by case; the TCK checks every store against it. */
class OrderStateMachineTest {

  private static final Instant T0 = Instant.parse("2026-09-14T12:00:00Z");
  private static final Duration LEASE = Duration.ofMinutes(2);
  private static final OrderSnapshot SNAPSHOT =
      new OrderSnapshot("cs_test_1", "esim-eu-5gb", 1, "ada@example.com", 1999, "usd");
  private static final String N1 = "0123456789abcdef0123456789abcdef";
  private static final String N2 = "fedcba9876543210fedcba9876543210";
  private static final Item ESIM = new Item("prov-1", "LPA:1$smdp.example$ABC");

  private static OrderRecord claimedFresh() {
    return OrderStateMachine.claim(null, new ClaimRequest(SNAPSHOT, LEASE), T0, N1).next();
  }

  @Test
  @DisplayName("now is each clock's own millisecond, whichever clock was read before it")
  void nowIsTheClocksMillisecond() {
    Clock at5 = Clock.fixed(Instant.ofEpochSecond(0, 5_999_999), ZoneOffset.UTC);
    Clock at7 = Clock.fixed(Instant.ofEpochMilli(7), ZoneOffset.UTC);
    assertEquals(Instant.ofEpochMilli(5), OrderStateMachine.now(at5));
    assertEquals(Instant.ofEpochMilli(7), OrderStateMachine.now(at7));
    assertEquals(Instant.ofEpochMilli(5), OrderStateMachine.now(at5));
    assertSame(
        OrderStateMachine.now(at7), OrderStateMachine.now(at7)); // one object per millisecond
  }

  @Test
  @DisplayName("a first claim creates a PENDING order with fence 1 and the lease from now")
  void firstClaim() {
    var decision = OrderStateMachine.claim(null, new ClaimRequest(SNAPSHOT, LEASE), T0, N1);
    var claimed = assertInstanceOf(ClaimResult.Claimed.class, decision.result());
    assertEquals(new ClaimId(1, N1), claimed.claimId());
    OrderRecord r = decision.next();
    assertEquals(OrderStatus.PENDING, r.status());
    assertEquals(1, r.fence());
    assertEquals(T0, r.claimedAt());
    assertEquals(T0.plus(LEASE), r.leaseExpiresAt());
    assertEquals(T0, r.updatedAt());
    assertNull(r.settledBy());
  }

  @Test
  @DisplayName(
      "a live lease answers InFlight and changes nothing; at expiry the order is claimable")
  void liveLeaseAndBoundary() {
    OrderRecord r = claimedFresh();
    var live =
        OrderStateMachine.claim(
            r, new ClaimRequest(SNAPSHOT, LEASE), T0.plus(LEASE).minusMillis(1), N2);
    assertInstanceOf(ClaimResult.InFlight.class, live.result());
    assertNull(live.next());
    var expired = OrderStateMachine.claim(r, new ClaimRequest(SNAPSHOT, LEASE), T0.plus(LEASE), N2);
    var claimed = assertInstanceOf(ClaimResult.Claimed.class, expired.result());
    assertEquals(new ClaimId(2, N2), claimed.claimId());
    assertEquals(2, expired.next().fence());
  }

  @Test
  @DisplayName("a stale failure after a newer completion is superseded and changes nothing")
  void staleFailure() {
    OrderRecord a = claimedFresh();
    Instant later = T0.plus(LEASE);
    OrderRecord b = OrderStateMachine.claim(a, new ClaimRequest(SNAPSHOT, LEASE), later, N2).next();
    OrderRecord done =
        OrderStateMachine.write(
                b, new WriteRequest.Complete(SNAPSHOT.sessionId(), b.claimId(), ESIM), later)
            .next();
    var stale =
        OrderStateMachine.write(
            done,
            new WriteRequest.Fail(SNAPSHOT.sessionId(), a.claimId(), "provider outage"),
            later.plusSeconds(40));
    var superseded = assertInstanceOf(WriteResult.Superseded.class, stale.result());
    assertSame(done, superseded.current());
    assertNull(stale.next());
    assertNull(stale.orphan());
    assertInstanceOf(
        ClaimResult.Provisioned.class,
        OrderStateMachine.claim(done, new ClaimRequest(SNAPSHOT, LEASE), later.plus(LEASE), N1)
            .result());
  }

  @Test
  @DisplayName("a stale completion is superseded and its item becomes an orphan")
  void staleCompletionOrphan() {
    OrderRecord a = claimedFresh();
    OrderRecord b =
        OrderStateMachine.claim(a, new ClaimRequest(SNAPSHOT, LEASE), T0.plus(LEASE), N2).next();
    Item other = new Item("prov-2", null);
    var stale =
        OrderStateMachine.write(
            b, new WriteRequest.Complete(SNAPSHOT.sessionId(), a.claimId(), other), T0.plus(LEASE));
    assertInstanceOf(WriteResult.Superseded.class, stale.result());
    assertEquals(
        new Orphan(SNAPSHOT.sessionId(), a.claimId(), other, T0.plus(LEASE)), stale.orphan());
  }

  @Test
  @DisplayName("the holder of an expired lease nobody took over still settles")
  void expiredButNotTakenOver() {
    OrderRecord a = claimedFresh();
    var late =
        OrderStateMachine.write(
            a,
            new WriteRequest.Complete(SNAPSHOT.sessionId(), a.claimId(), ESIM),
            T0.plus(LEASE).plusSeconds(60));
    assertInstanceOf(WriteResult.Written.class, late.result());
    assertEquals(OrderStatus.PROVISIONED, late.next().status());
    assertEquals(a.claimId(), late.next().settledBy());
    assertNull(late.next().claimId());
  }

  @Test
  @DisplayName(
      "replaying the settle that landed answers Written and changes nothing; another item is an orphan")
  void replay() {
    OrderRecord a = claimedFresh();
    OrderRecord done =
        OrderStateMachine.write(
                a, new WriteRequest.Complete(SNAPSHOT.sessionId(), a.claimId(), ESIM), T0)
            .next();
    var again =
        OrderStateMachine.write(
            done,
            new WriteRequest.Complete(SNAPSHOT.sessionId(), a.claimId(), ESIM),
            T0.plusSeconds(5));
    assertSame(done, assertInstanceOf(WriteResult.Written.class, again.result()).record());
    assertNull(again.next());
    var different =
        OrderStateMachine.write(
            done,
            new WriteRequest.Complete(SNAPSHOT.sessionId(), a.claimId(), new Item("prov-9", null)),
            T0);
    assertInstanceOf(WriteResult.Superseded.class, different.result());
    assertEquals("prov-9", different.orphan().item().providerOrderId());
    var failAfterComplete =
        OrderStateMachine.write(
            done, new WriteRequest.Fail(SNAPSHOT.sessionId(), a.claimId(), "late"), T0);
    assertInstanceOf(WriteResult.Superseded.class, failAfterComplete.result());
  }

  @Test
  @DisplayName("a fail replayed after the order was claimed again is superseded")
  void failReplayAfterReclaim() {
    OrderRecord a = claimedFresh();
    OrderRecord failed =
        OrderStateMachine.write(
                a, new WriteRequest.Fail(SNAPSHOT.sessionId(), a.claimId(), "boom"), T0)
            .next();
    var replay =
        OrderStateMachine.write(
            failed, new WriteRequest.Fail(SNAPSHOT.sessionId(), a.claimId(), "boom"), T0);
    assertInstanceOf(WriteResult.Written.class, replay.result());
    OrderRecord b =
        OrderStateMachine.claim(failed, new ClaimRequest(SNAPSHOT, LEASE), T0, N2).next();
    assertEquals("boom", b.lastError(), "lastError is kept across a re-claim");
    var late =
        OrderStateMachine.write(
            b, new WriteRequest.Fail(SNAPSHOT.sessionId(), a.claimId(), "boom"), T0);
    assertInstanceOf(WriteResult.Superseded.class, late.result());
  }

  @Test
  @DisplayName("extend moves the lease from now and keeps status and token")
  void extend() {
    OrderRecord a = claimedFresh();
    var ext =
        OrderStateMachine.write(
            a,
            new WriteRequest.Extend(SNAPSHOT.sessionId(), a.claimId(), Duration.ofMinutes(5)),
            T0.plusSeconds(90));
    OrderRecord r = assertInstanceOf(WriteResult.Written.class, ext.result()).record();
    assertEquals(T0.plusSeconds(90).plus(Duration.ofMinutes(5)), r.leaseExpiresAt());
    assertEquals(a.claimId(), r.claimId());
    assertEquals(T0, r.claimedAt());
    assertEquals(OrderStatus.PENDING, r.status());
  }

  @Test
  @DisplayName("a token with the current fence but another nonce is superseded")
  void wrongNonce() {
    OrderRecord a = claimedFresh();
    var forged =
        OrderStateMachine.write(
            a, new WriteRequest.Fail(SNAPSHOT.sessionId(), new ClaimId(1, N2), "x"), T0);
    assertInstanceOf(WriteResult.Superseded.class, forged.result());
  }

  @Test
  @DisplayName("a record for another order is refused rather than decided on")
  void wrongRow() {
    OrderRecord a = claimedFresh();
    var other = new OrderSnapshot("cs_other", "p", 1, null, 0, "eur");
    assertThrows(
        IllegalArgumentException.class,
        () -> OrderStateMachine.claim(a, new ClaimRequest(other, LEASE), T0, N2));
  }

  @Test
  @DisplayName(
      "each fail that lands counts once and the first one's time is kept; replays, claims, extends and the complete keep both")
  void failuresCounted() {
    OrderRecord a = claimedFresh();
    assertEquals(0, a.failures());
    assertNull(a.failedSince());
    OrderRecord failed =
        OrderStateMachine.write(
                a, new WriteRequest.Fail(SNAPSHOT.sessionId(), a.claimId(), "boom"), T0)
            .next();
    assertEquals(1, failed.failures());
    assertEquals(T0, failed.failedSince());
    var replay =
        OrderStateMachine.write(
            failed, new WriteRequest.Fail(SNAPSHOT.sessionId(), a.claimId(), "boom"), T0);
    assertNull(replay.next());
    Instant later = T0.plusSeconds(60);
    OrderRecord b =
        OrderStateMachine.claim(failed, new ClaimRequest(SNAPSHOT, LEASE), later, N2).next();
    assertEquals(1, b.failures());
    assertEquals(T0, b.failedSince());
    OrderRecord extended =
        OrderStateMachine.write(
                b, new WriteRequest.Extend(SNAPSHOT.sessionId(), b.claimId(), LEASE), later)
            .next();
    assertEquals(1, extended.failures());
    OrderRecord twice =
        OrderStateMachine.write(
                extended, new WriteRequest.Fail(SNAPSHOT.sessionId(), b.claimId(), "again"), later)
            .next();
    assertEquals(2, twice.failures());
    assertEquals(T0, twice.failedSince());
    OrderRecord c =
        OrderStateMachine.claim(twice, new ClaimRequest(SNAPSHOT, LEASE), later, N1).next();
    OrderRecord done =
        OrderStateMachine.write(
                c, new WriteRequest.Complete(SNAPSHOT.sessionId(), c.claimId(), ESIM), later)
            .next();
    assertEquals(2, done.failures());
    assertEquals(T0, done.failedSince());
  }

  @Test
  @DisplayName(
      "a claim of another order under the key answers Mismatch on every status, writes nothing and"
          + " records the mismatch")
  void mismatchOnEveryStatus() {
    var other = new OrderSnapshot("cs_test_1", "esim-us-5gb", 2, null, 1999, "USD");
    OrderRecord held = claimedFresh();
    Instant expired = T0.plus(LEASE);
    OrderRecord failed =
        OrderStateMachine.write(
                held, new WriteRequest.Fail(SNAPSHOT.sessionId(), held.claimId(), "boom"), T0)
            .next();
    OrderRecord provisioned =
        OrderStateMachine.write(
                held, new WriteRequest.Complete(SNAPSHOT.sessionId(), held.claimId(), ESIM), T0)
            .next();
    for (OrderRecord current : java.util.List.of(held, failed, provisioned)) {
      for (Instant at : java.util.List.of(T0, expired)) {
        var decision = OrderStateMachine.claim(current, new ClaimRequest(other, LEASE), at, N2);
        var mismatch = assertInstanceOf(ClaimResult.Mismatch.class, decision.result());
        assertSame(current, mismatch.record());
        assertEquals(
            java.util.Set.of(OrderField.PRODUCT_ID, OrderField.QUANTITY), mismatch.fields());
        assertNull(decision.next());
        assertEquals(new MismatchId("cs_test_1", N2), decision.mismatch().id());
        assertEquals(at, decision.mismatch().recordedAt());
        assertEquals(other.productId(), decision.mismatch().offered().productId());
        assertEquals(SNAPSHOT.productId(), decision.mismatch().stored().productId());
      }
    }
    var sameOrder =
        new OrderSnapshot("cs_test_1", "esim-eu-5gb", 1, "new@example.com", 1999, "USD");
    var again = OrderStateMachine.claim(held, new ClaimRequest(sameOrder, LEASE), expired, N2);
    assertInstanceOf(ClaimResult.Claimed.class, again.result());
    assertSame(SNAPSHOT, again.next().snapshot());
    assertNull(again.mismatch());
  }
}
