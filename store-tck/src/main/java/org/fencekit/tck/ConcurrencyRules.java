package org.fencekit.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.fencekit.store.ClaimId;
import org.fencekit.store.ClaimResult;
import org.fencekit.store.Item;
import org.fencekit.store.OrderRecord;
import org.fencekit.store.OrderStatus;
import org.fencekit.store.OrderStore;
import org.fencekit.store.Orphan;
import org.fencekit.store.WriteResult;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Real threads released together: retried and racing settles, a many-orders stress run checked
 * against every invariant, and the rules across two instances over the same data. Ids start with
 * {@code concurrency_} and {@code peer_}. Part of {@link OrderStoreTck}.
 */
public abstract class ConcurrencyRules extends TckFixture {

  /** For the nested class of {@link OrderStoreTck} that runs this group. */
  ConcurrencyRules() {}

  /**
   * {@link OrderStoreTck#stressThreads()} threads retry one superseded complete at the same moment:
   * all are Superseded and exactly one orphan is recorded.
   *
   * <p>If this fails, check that orphans are unique per (claimId, providerOrderId) in the database
   * (a unique key, HSETNX), not by a read-then-insert outside the lock.
   */
  @Test
  @DisplayName("concurrent retries of one superseded complete record one orphan")
  void concurrency_orphanRetries() {
    String sid = sid("orphan-race");
    ClaimId slow = claimed(sid);
    clock.advance(LEASE);
    ClaimId fresh = claimed(sid);
    OrderRecord live = record(sid, fresh);
    OrderStore store = store();
    List<WriteResult> results =
        Race.run(suite.stressThreads(), i -> store.complete(sid, slow, ESIM_2));
    for (WriteResult result : results) {
      superseded(result, "a concurrent retry of the stale complete", sid, slow);
    }
    unchanged(live, sid, slow, "concurrent stale completes");
    orphansAre(
        List.of(new Orphan(sid, slow, ESIM_2, now())),
        sid,
        slow,
        "one orphan however many concurrent retries");
  }

  /**
   * {@link OrderStoreTck#stressThreads()} threads send the same complete at the same moment (a
   * retry racing the first try): all are Written with the same record, no orphan.
   *
   * <p>If this fails, check that the complete and the replay rule are decided under one lock: the
   * losers must see the winner's settle and answer it as a replay.
   */
  @Test
  @DisplayName("concurrent retries of one complete all answer Written with the same record")
  void concurrency_completeRetries() {
    String sid = sid("complete-race");
    ClaimId claimId = claimed(sid);
    OrderStore store = store();
    List<WriteResult> results =
        Race.run(suite.stressThreads(), i -> store.complete(sid, claimId, ESIM));
    OrderRecord stored = record(sid, claimId);
    for (WriteResult result : results) {
      OrderRecord answered = written(result, "a concurrent retry of the complete", sid, claimId);
      sameRecord(stored, answered, "every retry answers the one settled record", sid, claimId);
    }
    orphansAre(List.of(), sid, claimId, "replays are not orphans");
  }

  /**
   * Two completes (with different items) and two fails (with different errors), all with the
   * current token, race on each of several orders: exactly one is Written; the others are
   * superseded, and every complete that did not land has its item orphaned.
   *
   * <p>If this fails, check that complete and fail read the claim and write under the same lock, in
   * one atomic step: a check and a write in two steps lets two settles both pass the check.
   */
  @Test
  @DisplayName("a complete and a fail racing with one token: exactly one lands")
  void concurrency_completeFailRace() {
    OrderStore store = store();
    for (int round = 0; round < suite.settleRaceRounds(); round++) {
      String sid = sid("settle-race-" + round);
      ClaimId claimId = claimed(sid);
      List<WriteResult> results = Race.run(4, i -> switchSettle(store, i, sid, claimId));
      long landed = results.stream().filter(r -> r instanceof WriteResult.Written).count();
      assertEquals(
          1,
          landed,
          says(
              "exactly one of two completes and two fails racing with one"
                  + " token must land; got "
                  + results,
              sid,
              claimId));
      int winner = 0;
      while (!(results.get(winner) instanceof WriteResult.Written)) {
        winner++;
      }
      OrderRecord stored = record(sid, claimId);
      assertEquals(
          winner < 2 ? OrderStatus.PROVISIONED : OrderStatus.FAILED,
          stored.status(),
          says("the status must be the winner's", sid, claimId, stored));
      Set<Item> orphaned = new HashSet<>();
      orphans(store, sid).forEach(orphan -> orphaned.add(orphan.item()));
      Set<Item> expected = new HashSet<>(List.of(ESIM, ESIM_2));
      if (winner < 2) {
        expected.remove(winner == 0 ? ESIM : ESIM_2);
      }
      assertEquals(
          expected,
          orphaned,
          says("every complete that did not land is an orphan", sid, claimId, stored));
    }
  }

  static WriteResult switchSettle(OrderStore store, int i, String sid, ClaimId claimId) {
    if (i == 0) {
      return store.complete(sid, claimId, ESIM);
    }
    if (i == 1) {
      return store.complete(sid, claimId, ESIM_2);
    }
    return store.fail(sid, claimId, i == 2 ? "timeout" : "provider said no");
  }

  /**
   * {@link OrderStoreTck#stressThreads()} threads (half on the peer instance, if there is one) make
   * about six calls per order over {@link OrderStoreTck#stressOrders()} orders: claims with short
   * leases, completes, fails, extends, stale writes from superseded tokens and retried settles,
   * while the clock moves on. Then every invariant of the contract is checked against what each
   * call was told and the final state: fences 1..n with real-time order respected, at most one live
   * claim at a time, no Written for a superseded token, at most one completed purchase, PROVISIONED
   * never changing, and every superseded complete orphaned exactly once.
   *
   * <p>If this fails, check that every operation decides and writes in one atomic step under the
   * order's lock; the message names the order, the calls involved and the seed.
   */
  @Test
  @DisplayName(
      "many threads settling, re-claiming and writing stale on many orders keep every invariant")
  void concurrency_stress() throws Exception {
    OrderStore store = store();
    OrderStore other = suite.newPeerStore(clock);
    if (other != null) {
      track(other, "newPeerStore");
    }
    new StressRun(store(), other, clock, suite.seed(), suite.stressThreads(), suite.stressOrders())
        .runAndCheck();
  }

  /**
   * An order claimed through one instance is InFlight through the other, which reads the same
   * record.
   *
   * <p>If this fails, check that the store keeps no per-instance cache of orders.
   */
  @Test
  @DisplayName("an order claimed through one instance is in flight through the other")
  void peer_claimInFlightOnOther() throws Exception {
    OrderStore other = peer();
    String sid = sid("peer-inflight");
    ClaimId claimId = claimed(store(), sid);
    OrderRecord held = record(store(), sid, claimId);
    ClaimResult.InFlight answer =
        claimAnswers(
            ClaimResult.InFlight.class,
            other.claim(snapshot(sid), LEASE),
            sid,
            "the first instance's claim is live");
    sameRecord(held, answer.record(), "the peer must see the first instance's claim", sid, claimId);
    sameRecord(held, record(other, sid, claimId), "the peer's get", sid, claimId);
  }

  /**
   * {@link OrderStoreTck#raceThreads()} threads, alternating between the two instances, claim one
   * new order at once: exactly one owner.
   *
   * <p>If this fails, check that the first claim's insert is decided by the database (a unique key,
   * a lock), not within one instance.
   */
  @Test
  @DisplayName("concurrent claims across two instances yield exactly one owner")
  void peer_concurrentClaims() throws Exception {
    OrderStore other = peer();
    for (int round = 0; round < 4; round++) {
      String sid = sid("peer-race-" + round);
      OrderStore store = store();
      exactlyOneOwner(
          sid,
          Race.run(
              suite.raceThreads(), i -> (i % 2 == 0 ? store : other).claim(snapshot(sid), LEASE)));
    }
  }

  /**
   * Concurrent retries of one stale complete through both instances record one orphan, listed by
   * both.
   *
   * <p>If this fails, check that orphan uniqueness is enforced by the database.
   */
  @Test
  @DisplayName("an orphan recorded through either instance is listed by both, once")
  void peer_orphanListedByBoth() throws Exception {
    OrderStore other = peer();
    String sid = sid("peer-orphan");
    ClaimId slow = claimed(store(), sid);
    clock.advance(LEASE);
    claimed(other, sid);
    OrderStore store = store();
    List<WriteResult> results =
        Race.run(
            suite.stressThreads(), i -> (i % 2 == 0 ? store : other).complete(sid, slow, ESIM_2));
    for (WriteResult result : results) {
      superseded(result, "a stale complete through either instance", sid, slow);
    }
    List<Orphan> expected = List.of(new Orphan(sid, slow, ESIM_2, now()));
    orphansAre(expected, sid, slow, "orphans through the first instance");
    assertEquals(expected, orphans(other, sid), says("orphans through the peer", sid, slow));
  }
}
