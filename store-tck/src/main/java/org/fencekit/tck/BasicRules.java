package org.fencekit.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.time.Instant;
import org.fencekit.store.ClaimId;
import org.fencekit.store.ClaimResult;
import org.fencekit.store.OrderRecord;
import org.fencekit.store.OrderStore;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The basic rules, which run first so that a mistake there is recognisable before it shows up as a
 * failure of a bigger rule: time kept in whole milliseconds of the store's own clock, the lease
 * boundary, and closing. Ids start with {@code basic_}. Part of {@link OrderStoreTck}.
 */
public abstract class BasicRules extends TckFixture {

  /** Only {@link OrderStoreTck} extends the chain. */
  BasicRules() {}

  /**
   * All lease arithmetic is in whole milliseconds of the clock: a claim at a sub-millisecond
   * instant records the instant truncated to the millisecond, the lease ends lease later, and the
   * boundary is judged on truncated readings too.
   *
   * <p>If this fails, check that the store truncates the clock's reading to milliseconds
   * (OrderStateMachine.now) before storing or comparing it, and that the backend keeps at least
   * millisecond precision.
   */
  @Test
  @DisplayName("lease arithmetic is in whole milliseconds, whatever the clock's precision")
  void basic_millisecondPrecision() {
    String sid = sid("millis");
    Instant start = TestClock.START.plusNanos(123_456_789);
    Instant ms = TestClock.START.plusMillis(123);
    clock.set(start);
    ClaimId token = claimed(store(), snapshot(sid), Duration.ofMillis(1500));
    OrderRecord claimed = record(sid, token);
    assertEquals(
        ms, claimed.claimedAt(), says("claimedAt at a clock of " + start, sid, token, claimed));
    assertEquals(
        ms.plusMillis(1500), claimed.leaseExpiresAt(), says("leaseExpiresAt", sid, token, claimed));
    assertEquals(ms, claimed.updatedAt(), says("updatedAt", sid, token, claimed));
    Instant expires = claimed.leaseExpiresAt();
    clock.set(expires.minusNanos(1));
    claimAnswers(
        ClaimResult.InFlight.class,
        store().claim(snapshot(sid), LEASE),
        sid,
        "1 ns before expiry reads as 1 ms before");
    clock.set(expires.plusNanos(999_999));
    written(
        store().extend(sid, token, Duration.ofMillis(250)),
        "an extend at a sub-millisecond instant",
        sid,
        token);
    OrderRecord extended = record(sid, token);
    assertEquals(
        expires.plusMillis(250),
        extended.leaseExpiresAt(),
        says("the extended lease", sid, token, extended));
    clock.set(expires.plusMillis(250).plusNanos(500_000));
    ClaimId second = claimed(sid);
    assertEquals(
        expires.plusMillis(250),
        record(sid, second).claimedAt(),
        says("claimedAt of the" + " re-claim", sid, second));
  }

  /**
   * The lease is over at exactly {@code leaseExpiresAt}: a claim 1 ms before is InFlight, a claim
   * at that instant is Claimed ({@code now >= leaseExpiresAt}).
   *
   * <p>If this fails, check the comparison: live means {@code now < leaseExpiresAt}, strictly.
   */
  @Test
  @DisplayName("a lease is over at exactly leaseExpiresAt: a claim at that instant succeeds")
  void basic_leaseOverAtExpiry() {
    String sid = sid("boundary");
    ClaimId first = claimed(store(), snapshot(sid), Duration.ofMillis(1500));
    Instant expires = record(sid, first).leaseExpiresAt();
    clock.set(expires.minusMillis(1));
    claimAnswers(
        ClaimResult.InFlight.class,
        store().claim(snapshot(sid), LEASE),
        sid,
        "1 ms before leaseExpiresAt the lease is live");
    clock.set(expires);
    ClaimId second = claimed(sid);
    assertEquals(2, second.fence(), says("the claim at leaseExpiresAt", sid, second));
  }

  /**
   * close may be called more than once (the suite closes the store again after this test).
   *
   * <p>If this fails, check that close is idempotent (guard it with a flag).
   */
  @Test
  @DisplayName("closing a store twice is harmless")
  void basic_closeTwice() throws Exception {
    OrderStore extra = track(newStore(clock), "newStore");
    extra.close();
    extra.close();
  }
}
