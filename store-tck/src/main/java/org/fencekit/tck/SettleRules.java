package org.fencekit.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.fencekit.store.ClaimId;
import org.fencekit.store.ClaimResult;
import org.fencekit.store.Item;
import org.fencekit.store.OrderRecord;
import org.fencekit.store.OrderStatus;
import org.fencekit.store.Orphan;
import org.fencekit.store.UnknownOrderException;
import org.fencekit.store.WriteResult;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The rules of complete, fail and extend: what the current token writes, that every other token
 * (each half of it alone, and made-up tokens at the edges) changes nothing, and unknown orders. Ids
 * start with {@code settle_} and {@code unknown_}. Part of {@link OrderStoreTck}.
 */
public abstract class SettleRules extends TckFixture {

  /** For the nested class of {@link OrderStoreTck} that runs this group. */
  SettleRules() {}

  /**
   * complete by the current claim: PROVISIONED, the item, the claim cleared, settledBy the token,
   * updatedAt now; everything else as it was.
   *
   * <p>If this fails, check the fields the complete writes.
   */
  @Test
  @DisplayName(
      "complete by the current claim provisions the order, clears the claim and records who settled it")
  void settle_completeByCurrentClaim() {
    String sid = sid("complete");
    ClaimId claimId = claimed(sid);
    clock.advance(Duration.ofSeconds(10));
    OrderRecord done = completeWritten(sid, claimId, ESIM, "the complete");
    OrderRecord expected =
        new OrderRecord(
            snapshot(sid),
            OrderStatus.PROVISIONED,
            ESIM,
            null,
            null,
            null,
            null,
            1,
            claimId,
            now());
    sameRecord(expected, done, "the record complete answered", sid, claimId);
    sameRecord(expected, record(sid, claimId), "get after the complete", sid, claimId);
    orphansAre(List.of(), sid, claimId, "a current complete records no orphan");
  }

  /**
   * fail by the current claim: FAILED, lastError the error, the claim cleared, settledBy the token,
   * updatedAt now.
   *
   * <p>If this fails, check the fields the fail writes.
   */
  @Test
  @DisplayName(
      "fail by the current claim marks the order failed, clears the claim and records the error")
  void settle_failByCurrentClaim() {
    String sid = sid("fail");
    ClaimId claimId = claimed(sid);
    clock.advance(Duration.ofSeconds(10));
    OrderRecord failed = failWritten(sid, claimId, "provider said 503", "the fail");
    OrderRecord expected =
        new OrderRecord(
            snapshot(sid),
            OrderStatus.FAILED,
            null,
            "provider said 503",
            null,
            null,
            null,
            1,
            claimId,
            now(),
            1,
            now());
    sameRecord(expected, failed, "the record fail answered", sid, claimId);
    sameRecord(expected, record(sid, claimId), "get after the fail", sid, claimId);
  }

  /**
   * extend by the current claim sets leaseExpiresAt to now + lease and updatedAt to now; the claim,
   * claimedAt and status stay. Other claims are InFlight until the new expiry.
   *
   * <p>If this fails, check that extend computes the lease from the clock's now, not from the old
   * expiry or claimedAt.
   */
  @Test
  @DisplayName(
      "extend by the current claim moves the lease to now + lease and changes nothing else")
  void settle_extendByCurrentClaim() {
    String sid = sid("extend");
    ClaimId claimId = claimed(sid);
    OrderRecord before = record(sid, claimId);
    clock.advance(Duration.ofSeconds(30));
    OrderRecord extended = extendWritten(sid, claimId, Duration.ofMinutes(5), "the extend");
    OrderRecord expected =
        new OrderRecord(
            before.snapshot(),
            OrderStatus.PENDING,
            null,
            null,
            claimId,
            before.claimedAt(),
            now().plus(Duration.ofMinutes(5)),
            1,
            null,
            now());
    sameRecord(expected, extended, "the record extend answered", sid, claimId);
    sameRecord(expected, record(sid, claimId), "get after the extend", sid, claimId);
    clock.set(before.leaseExpiresAt().plusMillis(1));
    claimAnswers(
        ClaimResult.InFlight.class, sid, "the extended lease is live after the original expiry");
    clock.set(expected.leaseExpiresAt());
    assertEquals(2, claimed(sid).fence(), says("a claim at the extended expiry", sid, claimId));
  }

  /**
   * An order claimed with a 10-minute lease is extended, a minute later, by a 1-minute lease: the
   * lease now ends a minute from then, eight minutes earlier than before (an extend sets the end,
   * it does not keep the later one), and a claim at that new end is granted.
   *
   * <p>If this fails, check that extend writes leaseExpiresAt = now + lease whatever the current
   * end is (no max of the old and the new end, no "only if later" condition in the UPDATE or
   * script).
   */
  @Test
  @DisplayName(
      "extend with a shorter lease than the current one moves the end to now + the new lease, earlier")
  void settle_extendShorterLease() {
    String sid = sid("extend-shorter");
    ClaimId claimId = claimed(store(), snapshot(sid), Duration.ofMinutes(10));
    clock.advance(Duration.ofMinutes(1));
    Instant end = now().plus(Duration.ofMinutes(1));
    OrderRecord extended = extendWritten(sid, claimId, Duration.ofMinutes(1), "the shorter extend");
    String expectation =
        "an extend by 1 minute at the clock's "
            + now()
            + " must end the lease at "
            + end
            + ", not keep the later end of the 10-minute claim";
    assertEquals(end, extended.leaseExpiresAt(), says(expectation, sid, claimId, extended));
    assertEquals(end, record(sid, claimId).leaseExpiresAt(), says(expectation, sid, claimId));
    clock.set(end.minusMillis(1));
    claimAnswers(ClaimResult.InFlight.class, sid, "the shortened lease is live until its end");
    clock.set(end);
    assertEquals(
        2,
        claimed(sid).fence(),
        says("a claim at the shortened lease's end must be granted", sid, claimId));
  }

  /**
   * The holder of an expired lease that nobody took over still completes: the fence is ownership,
   * not time.
   *
   * <p>If this fails, check that complete compares tokens only and never rejects a write because
   * {@code leaseExpiresAt} has passed.
   */
  @Test
  @DisplayName(
      "the fence is ownership, not time: the holder of an expired lease that nobody took over still completes")
  void settle_expiredHolderStillCompletes() {
    String sid = sid("late-complete");
    ClaimId claimId = claimed(sid);
    clock.advance(LEASE.multipliedBy(3));
    OrderRecord done = completeWritten(sid, claimId, ESIM, "the late complete");
    assertEquals(
        OrderStatus.PROVISIONED, done.status(), says("the late complete", sid, claimId, done));
    sameRecord(done, record(sid, claimId), "get after the late complete", sid, claimId);
  }

  /**
   * The holder of an expired lease that nobody took over still fails the order.
   *
   * <p>If this fails, check that fail compares tokens only, not the lease's expiry.
   */
  @Test
  @DisplayName("the holder of an expired lease that nobody took over still fails")
  void settle_expiredHolderStillFails() {
    String sid = sid("late-fail");
    ClaimId claimId = claimed(sid);
    clock.advance(LEASE.multipliedBy(3));
    OrderRecord failed = failWritten(sid, claimId, "timeout", "the late fail");
    assertEquals(OrderStatus.FAILED, failed.status(), says("the late fail", sid, claimId, failed));
    sameRecord(failed, record(sid, claimId), "get after the late fail", sid, claimId);
  }

  /**
   * The holder of an expired lease that nobody took over can still extend it, which makes the lease
   * live again.
   *
   * <p>If this fails, check that extend compares tokens only, not the lease's expiry.
   */
  @Test
  @DisplayName("the holder of an expired lease that nobody took over can still extend it")
  void settle_expiredHolderStillExtends() {
    String sid = sid("late-extend");
    ClaimId claimId = claimed(sid);
    clock.advance(LEASE.multipliedBy(3));
    OrderRecord extended = extendWritten(sid, claimId, LEASE, "the late extend");
    assertEquals(
        now().plus(LEASE),
        extended.leaseExpiresAt(),
        says("the late extend's expiry", sid, claimId, extended));
    claimAnswers(ClaimResult.InFlight.class, sid, "the extended lease is live again");
  }

  /**
   * An extend from a claim that another attempt took over is superseded and changes nothing: it
   * cannot take the order back.
   *
   * <p>If this fails, check that extend compares the token with the current claim.
   */
  @Test
  @DisplayName("an extend from a superseded claim is rejected and changes nothing")
  void settle_supersededExtendRejected() {
    String sid = sid("stale-extend");
    ClaimId slow = claimed(sid);
    clock.advance(LEASE);
    ClaimId fresh = claimed(sid);
    OrderRecord live = record(sid, fresh);
    clock.advance(Duration.ofSeconds(1));
    extendSuperseded(sid, slow, LEASE, "the superseded extend");
    unchanged(live, sid, slow, "a superseded extend");
  }

  /**
   * An extend after the order was settled (completed, or failed) is superseded: a settled order has
   * no claim to extend.
   *
   * <p>If this fails, check that settling clears the claim and that extend is never treated as a
   * replay.
   */
  @Test
  @DisplayName("an extend after the order was settled is rejected")
  void settle_extendAfterSettleRejected() {
    String sid = sid("extend-settled");
    ClaimId claimId = claimed(sid);
    OrderRecord done = completeWritten(sid, claimId, ESIM, "the complete");
    extendSuperseded(sid, claimId, LEASE, "an extend after complete");
    unchanged(done, sid, claimId, "an extend after complete");

    String other = sid("extend-failed");
    ClaimId loser = claimed(other);
    OrderRecord failed = failWritten(other, loser, "declined", "the fail");
    extendSuperseded(other, loser, LEASE, "an extend after fail");
    unchanged(failed, other, loser, "an extend after fail");
  }

  /**
   * A token with the current fence but another nonce (what a superseded attempt holds after the
   * record was lost and created again, e.g. a Redis restart) is superseded for every write; its
   * complete is orphaned.
   *
   * <p>If this fails, check that writes compare the nonce as well as the fence.
   */
  @Test
  @DisplayName("a made-up token with the current fence but another nonce is superseded")
  void settle_currentFenceOtherNonce() {
    String sid = sid("resurrected");
    ClaimId real = claimed(sid);
    allSuperseded(sid, real, List.of(new ClaimId(real.fence(), ClaimId.newNonce())));
  }

  /**
   * A token with the order's current nonce but another fence, one older and one newer, is
   * superseded for every write and changes nothing; its complete is orphaned under that token. With
   * {@code settle_currentFenceOtherNonce} (the current fence, another nonce), each half of the
   * token is tested alone: a write settles only when both match.
   *
   * <p>If this fails, check that writes compare the fence as well as the nonce.
   */
  @Test
  @DisplayName(
      "a made-up token with the current nonce but another fence, older or newer, is superseded")
  void settle_currentNonceOtherFence() {
    String sid = sid("other-fence");
    claimed(sid);
    clock.advance(LEASE);
    ClaimId real = claimed(sid);
    allSuperseded(
        sid,
        real,
        List.of(
            new ClaimId(real.fence() - 1, real.nonce()),
            new ClaimId(real.fence() + 1, real.nonce())));
  }

  /**
   * Every write with each of {@code wrongs} on order {@code sid}, whose current token is {@code
   * real}, is superseded and changes nothing, and each complete is orphaned under its own token;
   * then the real token still completes.
   */
  private void allSuperseded(String sid, ClaimId real, List<ClaimId> wrongs) {
    List<Orphan> orphans = new ArrayList<>();
    for (ClaimId wrong : wrongs) {
      OrderRecord before = record(sid, real);
      clock.advance(Duration.ofMillis(5));
      extendSuperseded(sid, wrong, LEASE, "an extend with " + wrong);
      failSuperseded(sid, wrong, "forged", "a fail with " + wrong);
      Item item = new Item("prov-made-up-" + orphans.size(), null);
      completeSuperseded(sid, wrong, item, "a complete with " + wrong);
      orphans.add(new Orphan(sid, wrong, item, now()));
      unchanged(before, sid, wrong, "writes with the made-up token " + wrong);
    }
    orphansAre(
        orphans,
        sid,
        real,
        "each made-up complete is orphaned under its own token, fence included");
    completeWritten(sid, real, ESIM, "the real token's complete");
  }

  /**
   * Made-up tokens at the edges are superseded for every write and change nothing: fence 1 on an
   * order claimed twice, the next fence (the one a new claim would get), and {@code
   * Long.MAX_VALUE}, each with a new nonce and with the current one; a complete with each is
   * orphaned under that token. (Fence 0 cannot even be made: {@link ClaimId} refuses it.)
   *
   * <p>If this fails, check that the token is compared for equality with the current claim, never
   * as "a fence at least the current one", and that the backend stores and compares the fence as a
   * 64-bit integer.
   */
  @Test
  @DisplayName(
      "made-up tokens at the edges (fence 1, the next fence, Long.MAX_VALUE) are superseded")
  void settle_madeUpEdgeTokens() {
    assertThrows(IllegalArgumentException.class, () -> new ClaimId(0, ClaimId.newNonce()));
    String sid = sid("edge-tokens");
    claimed(sid);
    clock.advance(LEASE);
    ClaimId real = claimed(sid);
    List<ClaimId> madeUp = new ArrayList<>();
    for (long fence : new long[] {1, real.fence() + 1, Long.MAX_VALUE}) {
      madeUp.add(new ClaimId(fence, ClaimId.newNonce()));
      if (fence != 1) {
        madeUp.add(new ClaimId(fence, real.nonce()));
      }
    }
    allSuperseded(sid, real, madeUp);
  }

  /**
   * On an order at fence 2, tokens with the current nonce whose fence is 2 + 2^31, 2 + 2^32, 2 +
   * 2^33, or the largest fence equal to 2 modulo 2^32 (near {@code Long.MAX_VALUE}) are superseded
   * for every write, changing nothing, and each complete is orphaned under its exact token; after
   * the real complete, a complete with the same item and a token equal to the settling one modulo
   * 2^32 is no replay: it is superseded and orphaned too.
   *
   * <p>If this fails, check that the fence is read, stored and compared as a 64-bit integer
   * everywhere: a JDBC getInt or an int column, a Lua tonumber or string.format("%d") cut to 32
   * bits, or a cast to int makes these tokens equal to the current one.
   */
  @Test
  @DisplayName(
      "tokens whose fence differs from the order's by 2^31 or 2^32, or equals it modulo 2^32, are superseded")
  void settle_fenceAs64Bits() {
    String sid = sid("fence-64-bits");
    claimed(sid);
    clock.advance(LEASE);
    ClaimId real = claimed(sid);
    long fence = real.fence();
    long topAlias = Long.MAX_VALUE - Long.remainderUnsigned(Long.MAX_VALUE - fence, 1L << 32);
    List<ClaimId> aliases = new ArrayList<>();
    for (long other : new long[] {fence + (1L << 31), fence + (1L << 32), fence + (1L << 33)}) {
      aliases.add(new ClaimId(other, real.nonce()));
    }
    aliases.add(new ClaimId(topAlias, real.nonce()));
    allSuperseded(sid, real, aliases);
    OrderRecord done = record(sid, real);
    ClaimId alias = new ClaimId(fence + (1L << 32), real.nonce());
    clock.advance(Duration.ofMillis(5));
    completeSuperseded(sid, alias, ESIM, "a complete with " + alias + " after " + real + "'s");
    failSuperseded(sid, alias, "forged", "a fail with " + alias + " after " + real + "'s complete");
    unchanged(done, sid, alias, "writes with " + alias + " on the order " + real + " settled");
    List<Orphan> found = orphans(store(), sid);
    Orphan last = found.isEmpty() ? null : found.get(found.size() - 1);
    assertEquals(
        new Orphan(sid, alias, ESIM, now()),
        last,
        says("the complete with " + alias + " is no replay of " + real + "'s", sid, alias));
  }

  /**
   * Superseded complete, fail and extend leave the order exactly as it was, updatedAt included, and
   * answer the order as it is.
   *
   * <p>If this fails, check that a rejected write issues no UPDATE at all (not even of updatedAt)
   * and answers the record it read.
   */
  @Test
  @DisplayName("a superseded write changes nothing, not even updatedAt")
  void settle_supersededChangesNothing() {
    String sid = sid("untouched");
    ClaimId slow = claimed(sid);
    clock.advance(LEASE);
    ClaimId fresh = claimed(sid);
    OrderRecord live = record(sid, fresh);
    String carried = "Superseded must carry the order as it is";
    clock.advance(Duration.ofSeconds(7));
    sameRecord(
        live, completeSuperseded(sid, slow, ESIM_2, "the stale complete"), carried, sid, slow);
    clock.advance(Duration.ofSeconds(7));
    sameRecord(live, failSuperseded(sid, slow, "late", "the stale fail"), carried, sid, slow);
    clock.advance(Duration.ofSeconds(7));
    sameRecord(live, extendSuperseded(sid, slow, LEASE, "the stale extend"), carried, sid, slow);
    unchanged(live, sid, slow, "superseded complete, fail and extend");
  }

  /**
   * The attempt that failed the order later reports a successful purchase (its provider call
   * succeeded after all): the complete is superseded and its item orphaned, since it is not a
   * replay of the fail.
   *
   * <p>If this fails, check that only the same operation with an equal item or error is a replay,
   * and that every superseded complete is orphaned.
   */
  @Test
  @DisplayName(
      "a complete from the token that failed the order is superseded and its item orphaned")
  void settle_completeAfterOwnFailOrphaned() {
    String sid = sid("fail-then-complete");
    ClaimId claimId = claimed(sid);
    OrderRecord failed = failWritten(sid, claimId, "timeout", "the fail");
    clock.advance(Duration.ofSeconds(2));
    completeSuperseded(sid, claimId, ESIM, "the complete after the fail");
    unchanged(failed, sid, claimId, "a complete after the same token's fail");
    orphansAre(
        List.of(new Orphan(sid, claimId, ESIM, now())),
        sid,
        claimId,
        "the late purchase must be orphaned");
  }

  /**
   * Writes to one order leave another order, and its orphans, untouched.
   *
   * <p>If this fails, check that every statement and script is keyed by the session id.
   */
  @Test
  @DisplayName("orders are independent: settling one does not touch another")
  void settle_ordersIndependent() {
    String a = sid("independent-a");
    String b = sid("independent-b");
    ClaimId tokenA = claimed(a);
    ClaimId tokenB = claimed(b);
    assertEquals(1, tokenB.fence(), says("another order's first claim has fence 1", b, tokenB));
    OrderRecord recordB = record(b, tokenB);
    completeWritten(a, tokenA, ESIM, "the complete of A");
    completeSuperseded(a, tokenB, ESIM_2, "B's token on A");
    completeSuperseded(b, tokenA, ESIM_3, "A's token on B");
    unchanged(recordB, b, tokenB, "writes on order A");
    orphansAre(List.of(new Orphan(b, tokenA, ESIM_3, now())), b, tokenA, "B's orphans");
    orphansAre(List.of(new Orphan(a, tokenB, ESIM_2, now())), a, tokenB, "A's orphans");
  }

  /**
   * complete on an order that was never claimed throws UnknownOrderException naming the order, and
   * creates nothing.
   *
   * <p>If this fails, check that complete never inserts (an UPDATE or a script that finds no record
   * must throw, not upsert).
   */
  @Test
  @DisplayName("complete on an unknown order throws UnknownOrderException and creates nothing")
  void unknown_complete() {
    unknown("complete", (sid, claimId) -> store().complete(sid, claimId, ESIM));
  }

  /**
   * fail on an order that was never claimed throws UnknownOrderException and creates nothing.
   *
   * <p>If this fails, check that fail never inserts.
   */
  @Test
  @DisplayName("fail on an unknown order throws UnknownOrderException and creates nothing")
  void unknown_fail() {
    unknown("fail", (sid, claimId) -> store().fail(sid, claimId, "declined"));
  }

  /**
   * extend on an order that was never claimed throws UnknownOrderException and creates nothing.
   *
   * <p>If this fails, check that extend never inserts.
   */
  @Test
  @DisplayName("extend on an unknown order throws UnknownOrderException and creates nothing")
  void unknown_extend() {
    unknown("extend", (sid, claimId) -> store().extend(sid, claimId, LEASE));
  }

  /** A write on an unknown order. */
  @FunctionalInterface
  interface UnknownWrite {
    WriteResult run(String sessionId, ClaimId claimId);
  }

  void unknown(String operation, UnknownWrite write) {
    String sid = sid("unknown-" + operation);
    ClaimId claimId = new ClaimId(1, ClaimId.newNonce());
    UnknownOrderException thrown = null;
    WriteResult returned = null;
    try {
      returned = write.run(sid, claimId);
    } catch (UnknownOrderException e) {
      thrown = e;
    }
    WriteResult answered = returned;
    assertNotNull(
        thrown,
        says(
            operation
                + " of an order never claimed must throw"
                + " UnknownOrderException but answered "
                + answered,
            sid,
            claimId,
            answered == null ? null : answered.record()));
    assertEquals(
        sid, thrown.sessionId(), says("UnknownOrderException must name the order", sid, claimId));
    absent(sid, operation + " of an unknown order");
  }

  /**
   * get of an order that was never claimed is empty.
   *
   * <p>If this fails, check that get returns Optional.empty() for a missing row or key.
   */
  @Test
  @DisplayName("get of an unknown order is empty")
  void unknown_get() {
    String sid = sid("get-unknown");
    Optional<OrderRecord> found = store().get(sid);
    assertNotNull(found, () -> "get must never return null (order '" + sid + "')");
    assertTrue(found.isEmpty(), says("get of an unknown order", sid, null, found.orElse(null)));
  }

  /**
   * orphans of an order that was never claimed is an empty list, not null and not an error.
   *
   * <p>If this fails, check that orphans returns List.of() for a missing order.
   */
  @Test
  @DisplayName("orphans of an unknown order is an empty list")
  void unknown_orphans() {
    String sid = sid("orphans-unknown");
    orphansAre(List.of(), sid, null, "orphans of an unknown order");
  }
}
