package org.fencekit.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.fencekit.store.ClaimId;
import org.fencekit.store.ClaimResult;
import org.fencekit.store.OrderRecord;
import org.fencekit.store.OrderStatus;
import org.fencekit.store.OrderStore;
import org.fencekit.store.Orphan;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The ten rules of the incident report ("a lease is not a fence"): stale writes from an attempt
 * whose lease ran out, and concurrent deliveries of one event. Ids start with {@code incident_}.
 * Part of {@link OrderStoreTck}.
 */
public abstract class IncidentRules extends TckFixture {

  /** For the nested class of {@link OrderStoreTck} that runs this group. */
  IncidentRules() {}

  /**
   * Attempt A claims and overruns its lease; attempt B re-claims and provisions; A's late fail must
   * be superseded, the order must stay provisioned with B's item, and it must not be claimable
   * again (a claimable order is a third charge waiting for the next retry).
   *
   * <p>If this fails, check that fail compares the token presented with the record's current claim
   * before writing, and that claim answers Provisioned for a PROVISIONED order.
   */
  @Test
  @DisplayName("a stale failure cannot undo a provisioned order")
  void incident_staleFailCannotUndoProvisioned() {
    String sid = sid("stale-fail");
    ClaimId slow = claimed(sid);
    clock.advance(LEASE);
    ClaimId fresh = claimed(sid);
    completeWritten(sid, fresh, ESIM, "the fresh attempt's complete");

    failSuperseded(sid, slow, "provider outage", "the stale fail");

    OrderRecord record = record(sid, slow);
    assertEquals(
        OrderStatus.PROVISIONED,
        record.status(),
        says("the customer's eSIM must survive a stale fail", sid, slow, record));
    assertEquals(
        ESIM, record.item(), says("the item must be the fresh attempt's", sid, slow, record));
    claimAnswers(
        ClaimResult.Provisioned.class, sid, "the order must not be re-opened for a third purchase");
  }

  /**
   * A superseded attempt's complete must not replace the item the live attempt delivered and the
   * customer was shown; the superseded item is kept as an orphan instead.
   *
   * <p>If this fails, check that complete compares the token presented with the record's current
   * claim before writing the item.
   */
  @Test
  @DisplayName("a stale completion cannot overwrite the item the customer was shown")
  void incident_staleCompleteCannotOverwriteItem() {
    String sid = sid("stale-complete");
    ClaimId slow = claimed(sid);
    clock.advance(LEASE);
    ClaimId fresh = claimed(sid);
    OrderRecord shown = completeWritten(sid, fresh, ESIM, "the fresh complete");

    completeSuperseded(sid, slow, ESIM_2, "the stale complete");

    unchanged(shown, sid, slow, "a stale complete");
    orphansAre(
        List.of(new Orphan(sid, slow, ESIM_2, now())),
        sid,
        slow,
        "the stale attempt's item must be recorded as an orphan");
  }

  /**
   * When the newer attempt failed, the order is FAILED and claimable, but a write from the older,
   * superseded attempt must still be rejected: the fence is the token, not the status.
   *
   * <p>If this fails, check that complete and fail reject a token other than the current claim
   * whatever the status, and that a fail clears the claim.
   */
  @Test
  @DisplayName("a stale write is rejected even when the newer attempt failed")
  void incident_staleWriteRejectedWhenNewerFailed() {
    String sid = sid("newer-failed");
    ClaimId slow = claimed(sid);
    clock.advance(LEASE);
    ClaimId fresh = claimed(sid);
    OrderRecord failed = failWritten(sid, fresh, "card declined", "the fresh fail");

    failSuperseded(sid, slow, "timeout", "the stale fail");
    completeSuperseded(sid, slow, ESIM, "the stale complete");

    unchanged(failed, sid, slow, "stale writes on a failed order");
    assertEquals(
        "card declined",
        failed.lastError(),
        says("the newer attempt's error must be kept", sid, slow, failed));
    assertEquals(
        fresh, failed.settledBy(), says("settledBy must be the newer attempt", sid, slow, failed));
    ClaimId next = claimed(sid);
    assertEquals(
        3, next.fence(), says("the failed order must be claimable, with fence 3", sid, next));
  }

  /**
   * Once an attempt settled the order, another write from the same token (a different item, a fail
   * after a complete, a complete after a fail, an extend) is superseded and changes nothing:
   * settling ends the claim.
   *
   * <p>If this fails, check that complete and fail clear the claim (claimId, claimedAt,
   * leaseExpiresAt) and that only an exact replay of the settle answers Written.
   */
  @Test
  @DisplayName("a settled order rejects a second write from the same token")
  void incident_settledOrderRejectsSecondWrite() {
    String sid = sid("settled-twice");
    ClaimId claimId = claimed(sid);
    OrderRecord done = completeWritten(sid, claimId, ESIM, "the complete");
    clock.advance(Duration.ofSeconds(1));
    completeSuperseded(sid, claimId, ESIM_2, "a second complete with another item");
    failSuperseded(sid, claimId, "late failure", "a fail after the complete");
    extendSuperseded(sid, claimId, LEASE, "an extend after the complete");
    unchanged(done, sid, claimId, "second writes from the settling token");

    String other = sid("failed-twice");
    ClaimId loser = claimed(other);
    OrderRecord failed = failWritten(other, loser, "declined", "the fail");
    clock.advance(Duration.ofSeconds(1));
    failSuperseded(other, loser, "another error", "a second fail with another error");
    extendSuperseded(other, loser, LEASE, "an extend after the fail");
    unchanged(failed, other, loser, "second writes from the failing token");
  }

  /**
   * A token the store never granted is superseded for complete, fail and extend, and the order
   * stays as its real claim left it; the real token still settles it.
   *
   * <p>If this fails, check that writes compare the whole token (fence and nonce) with the record's
   * current claim, and never accept a token because the order is PENDING.
   */
  @Test
  @DisplayName("an unknown token is rejected outright")
  void incident_unknownTokenRejected() {
    String sid = sid("unknown-token");
    ClaimId real = claimed(sid);
    OrderRecord before = record(sid, real);
    ClaimId madeUp = new ClaimId(7, ClaimId.newNonce());
    failSuperseded(sid, madeUp, "forged", "a fail with a made-up token");
    extendSuperseded(sid, madeUp, LEASE, "an extend with a made-up token");
    unchanged(before, sid, madeUp, "writes with a made-up token");
    completeWritten(sid, real, ESIM, "the real token's complete");
  }

  /**
   * A slow attempt heartbeats, then its provider call hangs past the extended lease; another
   * attempt claims and provisions. The slow attempt's late extend and fail are superseded and the
   * order stays provisioned and unclaimable.
   *
   * <p>If this fails, check that extend and fail compare the token with the current claim, and that
   * an extend does not revive a claim another attempt took over.
   */
  @Test
  @DisplayName(
      "a provisioning call that outlives its lease cannot fail the order another attempt provisioned")
  void incident_outlivedLeaseCannotFailProvisioned() {
    String sid = sid("outlived");
    ClaimId slow = claimed(sid);
    clock.advance(LEASE.dividedBy(2));
    extendWritten(sid, slow, LEASE, "the slow attempt's heartbeat");
    clock.advance(LEASE);
    ClaimId fresh = claimed(sid);
    OrderRecord done = completeWritten(sid, fresh, ESIM, "the fresh complete");
    clock.advance(LEASE.dividedBy(3));

    extendSuperseded(sid, slow, LEASE, "the slow attempt's late heartbeat");
    failSuperseded(sid, slow, "provider timeout after 160 s", "the slow attempt's fail");

    unchanged(done, sid, slow, "the outlived attempt's writes");
    claimAnswers(
        ClaimResult.Provisioned.class, sid, "a provisioned order is never claimable again");
  }

  /**
   * A superseded attempt completes while the live attempt is still working: the item is recorded as
   * an orphan (real money to reconcile), the live claim is untouched, and the live attempt still
   * completes with its own item.
   *
   * <p>If this fails, check that a superseded complete appends {@code Orphan(sessionId, claimId,
   * item, now)} in the same atomic step as the rejection and writes nothing else.
   */
  @Test
  @DisplayName(
      "an item bought by a superseded attempt is reported as orphaned, not written over the live one")
  void incident_supersededPurchaseOrphaned() {
    String sid = sid("orphaned");
    ClaimId slow = claimed(sid);
    clock.advance(LEASE);
    ClaimId fresh = claimed(sid);
    OrderRecord live = record(sid, fresh);
    clock.advance(Duration.ofSeconds(3));
    Instant rejectedAt = now();

    completeSuperseded(sid, slow, ESIM_2, "the superseded attempt's complete");

    unchanged(live, sid, slow, "the superseded complete");
    orphansAre(
        List.of(new Orphan(sid, slow, ESIM_2, rejectedAt)),
        sid,
        slow,
        "the superseded purchase must be listed as an orphan, with its token, item and the"
            + " time it was rejected");
    OrderRecord done = completeWritten(sid, fresh, ESIM, "the live complete");
    assertEquals(
        ESIM, done.item(), says("the live attempt's item must be the order's", sid, fresh, done));
    assertEquals(
        1, orphans(store(), sid).size(), says("the live complete adds no orphan", sid, fresh));
  }

  /**
   * Two deliveries of one event claim at the same moment (repeated on several orders): exactly one
   * is Claimed, the other is InFlight (the handler's 409, so Stripe retries later) and sees the
   * winner's token; after the winner completes, a third delivery is Provisioned.
   *
   * <p>If this fails, check that the claim reads and writes the order in one atomic step (a
   * transaction holding the row lock, a Lua script), so two claims cannot both see it free.
   */
  @Test
  @DisplayName("two concurrent deliveries claim exactly once; the loser is told to retry later")
  void incident_twoDeliveriesClaimOnce() {
    for (int round = 0; round < 10; round++) {
      String sid = sid("two-deliveries-" + round);
      OrderStore store = store();
      List<ClaimResult> results = Race.run(2, i -> store.claim(snapshot(sid), LEASE));
      exactlyOneOwner(sid, results);
      ClaimId winner =
          results.stream()
              .filter(r -> r instanceof ClaimResult.Claimed)
              .map(r -> ((ClaimResult.Claimed) r).claimId())
              .findFirst()
              .orElseThrow();
      completeWritten(sid, winner, ESIM, "the winner's complete");
      claimAnswers(
          ClaimResult.Provisioned.class,
          sid,
          "a third delivery after the winner completed is a duplicate");
    }
  }

  /**
   * A stale write through one instance is fenced off by the claim another instance granted over the
   * same data: the fence holds across processes, not only across threads.
   *
   * <p>If this fails, check that the fence is decided by the database (a row lock, a script), not
   * by state cached in the store instance.
   */
  @Test
  @DisplayName("a stale write from another instance is fenced off")
  void incident_staleWriteFromAnotherInstance() throws Exception {
    OrderStore other = peer();
    String sid = sid("peer-stale");
    ClaimId slow = claimed(store(), sid);
    clock.advance(LEASE);
    ClaimId fresh = claimed(other, sid);
    assertEquals(
        2, fresh.fence(), says("the peer's re-claim must see the first claim", sid, fresh));
    OrderRecord done = written(other.complete(sid, fresh, ESIM), "the peer's complete", sid, fresh);

    failSuperseded(sid, slow, "provider outage", "the stale fail through the first instance");
    completeSuperseded(sid, slow, ESIM_2, "the stale complete through the first instance");

    sameRecord(
        done,
        record(store(), sid, slow),
        "the first instance must read the peer's write, unchanged",
        sid,
        slow);
    sameRecord(
        done, record(other, sid, slow), "the peer must read its own write, unchanged", sid, slow);
    assertEquals(
        List.of(new Orphan(sid, slow, ESIM_2, now())),
        orphans(other, sid),
        says("the peer must list the orphan recorded through the first instance", sid, slow));
    claimAnswers(ClaimResult.Provisioned.class, sid, "provisioned through the peer");
  }

  /**
   * {@link OrderStoreTck#raceThreads()} threads claim one new order at the same moment, several
   * times: one Claimed with fence 1, all others InFlight showing the owner's token.
   *
   * <p>If this fails, check that the first claim's insert cannot succeed twice (a primary key and
   * ON CONFLICT, HSETNX, a lock taken before the read), and that the loser of the insert decides
   * again against the winner's row.
   */
  @Test
  @DisplayName("concurrent claims for one session yield exactly one owner")
  void incident_concurrentClaimsOneOwner() {
    for (int round = 0; round < 4; round++) {
      String sid = sid("claim-race-" + round);
      OrderStore store = store();
      exactlyOneOwner(sid, Race.run(suite.raceThreads(), i -> store.claim(snapshot(sid), LEASE)));
    }
  }
}
