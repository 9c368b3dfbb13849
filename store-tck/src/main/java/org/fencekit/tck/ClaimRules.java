package org.fencekit.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.fencekit.store.ClaimId;
import org.fencekit.store.ClaimResult;
import org.fencekit.store.OrderRecord;
import org.fencekit.store.OrderSnapshot;
import org.fencekit.store.OrderStatus;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * One rule per row of the contract's claim table: first claim, provisioned, live lease, expired
 * lease, failed order; and what a claim keeps and changes. Ids start with {@code claim_}. Part of
 * {@link OrderStoreTck}.
 */
public abstract class ClaimRules extends TckFixture {

  /** For the nested class of {@link OrderStoreTck} that runs this group. */
  ClaimRules() {}

  /**
   * The first claim creates a PENDING order with fence 1, the snapshot, and a claim from now to now
   * + lease; no item, no error, not settled; get returns exactly the record the claim answered.
   *
   * <p>If this fails, check the insert of a new order: every field and the lease arithmetic.
   */
  @Test
  @DisplayName("the first claim creates a pending order with fence 1 and a lease from now")
  void claim_firstClaimCreatesPending() {
    String sid = sid("first-claim");
    clock.advance(Duration.ofMillis(1234));
    Instant at = now();
    ClaimResult.Claimed claimed =
        claimAnswers(
            ClaimResult.Claimed.class,
            store().claim(snapshot(sid), Duration.ofSeconds(90)),
            sid,
            "the order is new");
    ClaimId claimId = claimed.claimId();
    OrderRecord expected = pending(sid, claimId, at, Duration.ofSeconds(90), 1);
    assertEquals(
        1, claimId.fence(), says("the first claim has fence 1", sid, claimId, claimed.record()));
    sameRecord(expected, claimed.record(), "the created order", sid, claimId);
    sameRecord(
        expected, record(sid, claimId), "get must return the record claim answered", sid, claimId);
    orphansAre(List.of(), sid, claimId, "a new order has no orphans");
  }

  /**
   * The order {@code sid} as a claim with {@code claimId} at {@code at} leaves it: PENDING, the
   * first snapshot, the claim from {@code at} to {@code at + lease}, and nothing settled.
   */
  private static OrderRecord pending(
      String sid, ClaimId claimId, Instant at, Duration lease, long fence) {
    Instant end = at.plus(lease);
    return new OrderRecord(
        snapshot(sid), OrderStatus.PENDING, null, null, claimId, at, end, fence, null, at);
  }

  /**
   * A PROVISIONED order answers Provisioned to every later claim, whenever it comes, and the claim
   * changes nothing.
   *
   * <p>If this fails, check that claim tests for PROVISIONED before looking at the lease.
   */
  @Test
  @DisplayName("a provisioned order is never claimed again, and the claim changes nothing")
  void claim_provisionedNeverClaimedAgain() {
    String sid = sid("provisioned");
    ClaimId claimId = claimed(sid);
    OrderRecord done = completeWritten(sid, claimId, ESIM, "the complete");
    for (Duration later : List.of(Duration.ZERO, LEASE, Duration.ofHours(25))) {
      clock.advance(later);
      ClaimResult.Provisioned answer =
          claimAnswers(ClaimResult.Provisioned.class, sid, "PROVISIONED is terminal");
      sameRecord(done, answer.record(), "Provisioned must carry the order as it is", sid, claimId);
    }
    unchanged(done, sid, claimId, "claims of a provisioned order");
  }

  /**
   * While the current claim's lease is live ({@code now < leaseExpiresAt}), another claim answers
   * InFlight with the holder's record, and changes nothing.
   *
   * <p>If this fails, check the lease comparison ({@code now < leaseExpiresAt} means live) and that
   * an InFlight claim writes nothing.
   */
  @Test
  @DisplayName("a live lease turns another claim away as in flight, changing nothing")
  void claim_liveLeaseInFlight() {
    String sid = sid("in-flight");
    ClaimId holder = claimed(sid);
    OrderRecord held = record(sid, holder);
    for (Duration step :
        List.of(Duration.ZERO, Duration.ofSeconds(1), LEASE.minusSeconds(1).minusMillis(1))) {
      clock.advance(step);
      ClaimResult.InFlight answer =
          claimAnswers(ClaimResult.InFlight.class, sid, "the holder's lease is live at " + now());
      sameRecord(held, answer.record(), "InFlight must carry the holder's record", sid, holder);
    }
    unchanged(held, sid, holder, "claims turned away as in flight");
  }

  /**
   * A PENDING order whose lease ran out is claimed again: fence + 1, a new nonce, a claim from now,
   * status PENDING, updatedAt now.
   *
   * <p>If this fails, check the re-claim update: the fence must be incremented and the nonce drawn
   * anew, in the same atomic step that read the expired lease.
   */
  @Test
  @DisplayName("an expired lease can be claimed again: fence + 1, a new nonce, status pending")
  void claim_expiredLeaseReclaimed() {
    String sid = sid("expired");
    ClaimId first = claimed(sid);
    clock.advance(LEASE.plusSeconds(30));
    Instant at = now();
    ClaimResult.Claimed again =
        claimAnswers(
            ClaimResult.Claimed.class,
            store().claim(snapshot(sid), Duration.ofSeconds(45)),
            sid,
            "the lease expired");
    ClaimId second = again.claimId();
    assertEquals(
        first.fence() + 1,
        second.fence(),
        says("the re-claim's fence", sid, second, again.record()));
    assertNotEquals(
        first.nonce(),
        second.nonce(),
        says("the re-claim's nonce must be new", sid, second, again.record()));
    OrderRecord expected = pending(sid, second, at, Duration.ofSeconds(45), 2);
    sameRecord(expected, again.record(), "the re-claimed order", sid, second);
    sameRecord(expected, record(sid, second), "get after the re-claim", sid, second);
  }

  /**
   * A FAILED order has no claim, so the next claim is granted at once: fence + 1, status PENDING,
   * and lastError and settledBy kept.
   *
   * <p>If this fails, check that fail clears the claim and that claim treats "no claim" as free.
   */
  @Test
  @DisplayName("a failed order can be claimed again at once, keeping its last error")
  void claim_failedOrderClaimedAgain() {
    String sid = sid("failed-reclaim");
    ClaimId first = claimed(sid);
    failWritten(sid, first, "provider said 503", "the fail");
    Instant failedAt = now();
    clock.advance(Duration.ofMillis(5));
    Instant at = now();
    ClaimResult.Claimed again =
        claimAnswers(ClaimResult.Claimed.class, sid, "a FAILED order is claimable");
    OrderRecord expected =
        new OrderRecord(
            snapshot(sid),
            OrderStatus.PENDING,
            null,
            "provider said 503",
            again.claimId(),
            at,
            at.plus(LEASE),
            2,
            first,
            at,
            1,
            failedAt);
    sameRecord(
        expected,
        again.record(),
        "the re-claimed order keeps lastError, settledBy and the failure count",
        sid,
        again.claimId());
    sameRecord(
        expected, record(sid, again.claimId()), "get after the re-claim", sid, again.claimId());
  }

  /**
   * The snapshot stored is the first claim's; later claims of the same order (granted, in flight,
   * or on a provisioned order) whose snapshot differs only outside {@link
   * org.fencekit.store.OrderField} (another e-mail, the currency in upper case) do not overwrite
   * it. A snapshot that differs in an order field is another order: {@code MismatchRules}.
   *
   * <p>If this fails, check that the re-claim update writes the claim columns only, not the
   * snapshot, and that the e-mail and the currency's case are not compared.
   */
  @Test
  @DisplayName(
      "the first snapshot is kept; a later claim of the same order (e-mail, currency case) does not overwrite it")
  void claim_firstSnapshotKept() {
    String sid = sid("snapshot");
    OrderSnapshot first = snapshot(sid);
    OrderSnapshot later =
        new OrderSnapshot(sid, "esim-eu-5gb", 1, "grace@example.com", 1999, "USD");
    ClaimId claimId = claimed(store(), first, LEASE);
    ClaimResult inFlight = store().claim(later, LEASE);
    assertEquals(
        first,
        inFlight.record().snapshot(),
        says("an in-flight claim keeps the first snapshot", sid, claimId, inFlight.record()));
    failWritten(sid, claimId, "declined", "the fail");
    ClaimId second = claimed(store(), later, LEASE);
    assertEquals(
        first,
        record(sid, second).snapshot(),
        says("a granted re-claim keeps the first snapshot", sid, second));
    completeWritten(sid, second, ESIM, "the complete");
    ClaimResult done = store().claim(later, LEASE);
    assertEquals(
        first,
        done.record().snapshot(),
        says(
            "a claim of a provisioned order keeps the first snapshot", sid, second, done.record()));
    assertEquals(first, record(sid, second).snapshot(), says("the stored snapshot", sid, second));
  }

  /**
   * Over five claims (re-claimed after fails and after expired leases) the fences are 1, 2, 3, 4, 5
   * and the record's fence follows.
   *
   * <p>If this fails, check that every granted claim sets fence = previous fence + 1, read in the
   * same atomic step.
   */
  @Test
  @DisplayName("the fence strictly increases with every claim: 1, 2, 3, ...")
  void claim_fenceIncreases() {
    String sid = sid("fence");
    for (long expected = 1; expected <= 5; expected++) {
      ClaimId claimId = claimed(sid);
      assertEquals(
          expected,
          claimId.fence(),
          says("claim number " + expected + " must have fence " + expected, sid, claimId));
      assertEquals(
          expected,
          record(sid, claimId).fence(),
          says("the record's fence after claim " + expected, sid, claimId));
      if (expected % 2 == 1) {
        failWritten(sid, claimId, "attempt " + expected + " failed", "the fail");
      } else {
        clock.advance(LEASE);
      }
    }
  }

  /**
   * Every granted claim carries a nonce never seen before, on the same order and across orders.
   *
   * <p>If this fails, check that the nonce is drawn from a secure random source for every claim
   * (never derived from the session id, the fence or the time).
   */
  @Test
  @DisplayName("every claim gets a new nonce")
  void claim_newNonceEachClaim() {
    Set<String> nonces = new HashSet<>();
    String sid = sid("nonce");
    for (int i = 0; i < 4; i++) {
      ClaimId claimId = claimed(sid);
      assertTrue(
          nonces.add(claimId.nonce()), says("claim " + (i + 1) + " reused a nonce", sid, claimId));
      clock.advance(LEASE);
    }
    for (int i = 0; i < 3; i++) {
      String other = sid("nonce-" + i);
      ClaimId claimId = claimed(other);
      assertTrue(nonces.add(claimId.nonce()), says("a first claim reused a nonce", other, claimId));
    }
  }

  /**
   * A failed order's lastError stays when it is claimed again (after the fail, and after that
   * claim's lease expires), until a newer fail replaces it.
   *
   * <p>If this fails, check that the re-claim update leaves lastError alone.
   */
  @Test
  @DisplayName("the last error is kept when the order is claimed again")
  void claim_lastErrorKept() {
    String sid = sid("last-error");
    ClaimId first = claimed(sid);
    failWritten(sid, first, "provider said 503", "the first fail");
    ClaimId second = claimed(sid);
    assertEquals(
        "provider said 503",
        record(sid, second).lastError(),
        says("lastError after the re-claim", sid, second));
    clock.advance(LEASE);
    ClaimId third = claimed(sid);
    assertEquals(
        "provider said 503",
        record(sid, third).lastError(),
        says("lastError after a re-claim of an expired lease", sid, third));
    OrderRecord failed = failWritten(sid, third, "card declined", "the second fail");
    assertEquals(
        "card declined",
        failed.lastError(),
        says("a newer fail replaces lastError", sid, third, failed));
  }
}
