package org.fencekit.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.fencekit.store.ClaimId;
import org.fencekit.store.ClaimResult;
import org.fencekit.store.OrderRecord;
import org.fencekit.store.OrderStore;
import org.fencekit.store.Orphan;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The basic rules, which run first so that a mistake there is recognisable before it shows up as a
 * failure of a bigger rule: time kept in whole milliseconds of the store's own clock, the lease
 * boundary, and closing. Ids start with {@code basic_}. Part of {@link OrderStoreTck}.
 */
public abstract class BasicRules extends TckFixture {

  /** For the nested class of {@link OrderStoreTck} that runs this group. */
  BasicRules() {}

  /**
   * Every time the store keeps or compares comes from the clock it was built with, never from the
   * system clock or the database server's: with the clock far in the past and far in the future,
   * claimedAt, leaseExpiresAt and updatedAt of a claim, an extend and a settle, and an orphan's
   * recordedAt, are the clock's readings, and whether a lease is live is judged on the clock (a
   * lease live by the clock turns a claim away even where the system clock says it ended long ago,
   * and a lease over by the clock is claimed again where the system clock says it runs for years).
   *
   * <p>If this fails, check that every lease computation (now, now + lease, the live check,
   * updatedAt, an orphan's recordedAt) reads the Clock the store was built with, and that no SQL or
   * script reads the server's own time (now(), CURRENT_TIMESTAMP, TIME).
   */
  @Test
  @DisplayName("every lease computation uses the clock the store was built with")
  void basic_leaseUsesStoreClock() {
    for (Instant start :
        List.of(
            Instant.parse("2001-02-03T04:05:06.007Z"), Instant.parse("2093-04-05T06:07:08.009Z"))) {
      clock.set(start);
      String sid = sid("store-clock");
      ClaimId claimId = claimed(sid);
      OrderRecord claimedRecord = record(sid, claimId);
      assertEquals(
          start, claimedRecord.claimedAt(), says("claimedAt", sid, claimId, claimedRecord));
      assertEquals(
          start.plus(LEASE),
          claimedRecord.leaseExpiresAt(),
          says("leaseExpiresAt = the clock + the lease", sid, claimId, claimedRecord));
      assertEquals(
          start, claimedRecord.updatedAt(), says("updatedAt", sid, claimId, claimedRecord));
      clock.advance(Duration.ofSeconds(10));
      claimAnswers(
          ClaimResult.InFlight.class,
          sid,
          "the lease is live by the store's clock, whatever the system clock says");
      OrderRecord extended = extendWritten(sid, claimId, LEASE, "the extend");
      assertEquals(
          now().plus(LEASE),
          extended.leaseExpiresAt(),
          says("the extended lease = the clock + the lease", sid, claimId, extended));
      assertEquals(
          now(), extended.updatedAt(), says("updatedAt of the extend", sid, claimId, extended));
      clock.set(extended.leaseExpiresAt());
      ClaimId next = claimed(sid);
      assertEquals(
          2,
          next.fence(),
          says(
              "the lease is over by the store's clock, whatever the system clock says", sid, next));
      clock.advance(Duration.ofMillis(1));
      failWritten(sid, next, "declined", "the fail");
      assertEquals(now(), record(sid, next).updatedAt(), says("updatedAt of the fail", sid, next));
      clock.advance(Duration.ofMillis(1));
      completeSuperseded(sid, claimId, ESIM_2, "the first token's complete");
      orphansAre(
          List.of(new Orphan(sid, claimId, ESIM_2, now())),
          sid,
          claimId,
          "the orphan's recordedAt is the clock's reading");
    }
  }

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
    ClaimId claimId = claimed(store(), snapshot(sid), Duration.ofMillis(1500));
    OrderRecord claimed = record(sid, claimId);
    assertEquals(
        ms, claimed.claimedAt(), says("claimedAt at a clock of " + start, sid, claimId, claimed));
    assertEquals(
        ms.plusMillis(1500),
        claimed.leaseExpiresAt(),
        says("leaseExpiresAt", sid, claimId, claimed));
    assertEquals(ms, claimed.updatedAt(), says("updatedAt", sid, claimId, claimed));
    Instant expires = claimed.leaseExpiresAt();
    clock.set(expires.minusNanos(1));
    claimAnswers(ClaimResult.InFlight.class, sid, "1 ns before expiry reads as 1 ms before");
    clock.set(expires.plusNanos(999_999));
    extendWritten(sid, claimId, Duration.ofMillis(250), "an extend at a sub-millisecond instant");
    OrderRecord extended = record(sid, claimId);
    assertEquals(
        expires.plusMillis(250),
        extended.leaseExpiresAt(),
        says("the extended lease", sid, claimId, extended));
    clock.set(expires.plusMillis(250).plusNanos(500_000));
    ClaimId second = claimed(sid);
    assertEquals(
        expires.plusMillis(250),
        record(sid, second).claimedAt(),
        says("claimedAt of the re-claim", sid, second));
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
    claimAnswers(ClaimResult.InFlight.class, sid, "1 ms before leaseExpiresAt the lease is live");
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
    OrderStore extra = track(suite.newStore(clock), "newStore");
    extra.close();
    extra.close();
  }
}
