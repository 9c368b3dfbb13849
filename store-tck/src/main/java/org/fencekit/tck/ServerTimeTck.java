package org.fencekit.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import org.fencekit.store.ClaimResult;
import org.fencekit.store.OrderRecord;
import org.fencekit.store.OrderSnapshot;
import org.fencekit.store.OrderStore;
import org.fencekit.store.WriteResult;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The real-time group of the TCK, for a store that can take {@code now} from its server instead of
 * the injected clock (PostgreSQL's and Redis's {@code serverTime(true)}): short real leases, and
 * hosts whose clocks are wrong. It does not replace {@link OrderStoreTck}, whose rules drive a test
 * clock and so run on the store built with its client clock.
 *
 * <pre>{@code
 * class MyServerTimeTest extends ServerTimeTck {
 *   @Override
 *   protected OrderStore newServerTimeStore(Clock clientClock) {
 *     return MyOrderStore.builder().clock(clientClock).serverTime(true).build();
 *   }
 * }
 * }</pre>
 *
 * Leases here are real, so the rules wait for them, polling every 20 ms and giving up after 10 s;
 * the assertions compare the records' own times, never how long a call took. The rules assume the
 * server's clock is within a minute of this host's. Every store obtained is closed after the test.
 */
public abstract class ServerTimeTck {

  private static final String RUN =
      HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextInt());
  private static final AtomicInteger ORDERS = new AtomicInteger();
  private static final Duration WAIT = Duration.ofSeconds(10);

  private final List<OrderStore> stores = new ArrayList<>();

  /** For subclasses. */
  protected ServerTimeTck() {}

  /**
   * A store over the shared data whose lease arithmetic uses the server's clock, built with {@code
   * clientClock} as its injected clock (which it must then ignore for leases). Each call may return
   * a new instance over the same data.
   */
  protected abstract OrderStore newServerTimeStore(Clock clientClock);

  private OrderStore store(Clock clientClock) {
    OrderStore store = newServerTimeStore(clientClock);
    stores.add(store);
    return store;
  }

  @AfterEach
  void closeStores() {
    stores.forEach(OrderStore::close);
    stores.clear();
  }

  private static OrderSnapshot order() {
    return new OrderSnapshot(
        "st_" + RUN + "_" + ORDERS.incrementAndGet(), "esim", 1, null, 1500, "eur");
  }

  private static ClaimResult.Claimed claimed(ClaimResult result, String rule) {
    return assertInstanceOf(
        ClaimResult.Claimed.class, result, rule + ": expected Claimed, got " + result);
  }

  /**
   * If this fails, check that {@code now} is read from the server in the same statement or script
   * as the decision, and that the lease is stored as that time plus the lease.
   */
  @Test
  @DisplayName(
      "serverTime: a live real lease turns another claim away, and is stored as server now + lease")
  void serverTime_liveLeaseHolds() {
    OrderStore store = store(Clock.systemUTC());
    OrderSnapshot order = order();
    ClaimResult.Claimed first = claimed(store.claim(order, Duration.ofSeconds(30)), "first claim");
    OrderRecord record = first.record();
    assertEquals(
        Duration.ofSeconds(30),
        Duration.between(record.claimedAt(), record.leaseExpiresAt()),
        "leaseExpiresAt - claimedAt of order " + order.sessionId());
    assertNearHost(record.claimedAt(), "claimedAt of order " + order.sessionId());
    assertInstanceOf(ClaimResult.InFlight.class, store.claim(order, Duration.ofSeconds(30)));
  }

  /**
   * If this fails, check that the live test compares the server's now with leaseExpiresAt ({@code
   * now < leaseExpiresAt}) and that the take-over writes fence + 1 and a new nonce.
   */
  @Test
  @DisplayName("serverTime: once a short real lease is over, another claim takes the order over")
  void serverTime_expiredLeaseTakenOver() {
    OrderStore store = store(Clock.systemUTC());
    OrderSnapshot order = order();
    OrderRecord first = claimed(store.claim(order, Duration.ofMillis(200)), "first").record();
    ClaimResult.Claimed second = awaitClaimed(store, order, Duration.ofSeconds(30));
    assertEquals(2, second.claimId().fence(), "fence of the take-over of " + order.sessionId());
    Instant at = second.record().claimedAt();
    assertTrue(
        !at.isBefore(first.leaseExpiresAt()),
        String.format(
            "the take-over of %s was at %s, before the first lease ended at %s",
            order.sessionId(), at, first.leaseExpiresAt()));
  }

  /**
   * If this fails, check that extend computes the new lease end from the server's now, not from the
   * lease it replaces or the client's clock.
   */
  @Test
  @DisplayName(
      "serverTime: an extend moves the lease to server now + lease, keeping the order owned")
  void serverTime_extendFromServerNow() {
    OrderStore store = store(Clock.systemUTC());
    OrderSnapshot order = order();
    ClaimResult.Claimed claim = claimed(store.claim(order, Duration.ofMillis(300)), "claim");
    WriteResult extended = store.extend(order.sessionId(), claim.claimId(), Duration.ofSeconds(30));
    OrderRecord record = assertInstanceOf(WriteResult.Written.class, extended).record();
    assertEquals(
        Duration.ofSeconds(30),
        Duration.between(record.updatedAt(), record.leaseExpiresAt()),
        "leaseExpiresAt - updatedAt after the extend of " + order.sessionId());
    assertInstanceOf(ClaimResult.InFlight.class, store.claim(order, Duration.ofSeconds(30)));
  }

  /**
   * If this fails, check that no lease computation of a store built with server time reads the
   * injected clock: a host an hour ahead would otherwise find every live lease over.
   */
  @Test
  @DisplayName("serverTime: a host whose clock is an hour ahead does not take over a live order")
  void serverTime_clockAheadCannotTakeOver() {
    OrderStore honest = store(Clock.systemUTC());
    OrderStore ahead = store(Clock.offset(Clock.systemUTC(), Duration.ofHours(1)));
    OrderSnapshot order = order();
    ClaimResult.Claimed owner = claimed(honest.claim(order, Duration.ofMinutes(1)), "owner");
    ClaimResult takeOver = ahead.claim(order, Duration.ofMinutes(1));
    assertInstanceOf(
        ClaimResult.InFlight.class,
        takeOver,
        String.format(
            "a host an hour ahead claimed %s held by %s until %s",
            order.sessionId(), owner.claimId(), owner.record().leaseExpiresAt()));
    OrderRecord extended =
        assertInstanceOf(
                WriteResult.Written.class,
                ahead.extend(order.sessionId(), owner.claimId(), Duration.ofMinutes(1)))
            .record();
    assertNearHost(extended.updatedAt(), "updatedAt of an extend from the host an hour ahead");
  }

  /**
   * If this fails, check that a store built with server time stores the server's time, so that a
   * host whose clock is behind cannot keep a dead lease alive for others.
   */
  @Test
  @DisplayName("serverTime: a host whose clock is an hour behind cannot keep a dead lease alive")
  void serverTime_clockBehindCannotKeepDeadLease() {
    OrderStore behind = store(Clock.offset(Clock.systemUTC(), Duration.ofHours(-1)));
    OrderStore honest = store(Clock.systemUTC());
    OrderSnapshot order = order();
    OrderRecord first = claimed(behind.claim(order, Duration.ofMillis(200)), "first").record();
    assertNearHost(first.claimedAt(), "claimedAt of a claim from the host an hour behind");
    ClaimResult.Claimed second = awaitClaimed(honest, order, Duration.ofSeconds(30));
    assertEquals(2, second.claimId().fence(), "fence of the take-over of " + order.sessionId());
  }

  private static ClaimResult.Claimed awaitClaimed(
      OrderStore store, OrderSnapshot order, Duration lease) {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (true) {
      ClaimResult result = store.claim(order, lease);
      if (result instanceof ClaimResult.Claimed claimed) {
        return claimed;
      }
      if (System.nanoTime() > deadline) {
        fail(
            String.format(
                "order %s was still %s after %s of real time; its lease was shorter than a second",
                order.sessionId(), result, WAIT));
      }
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        fail("interrupted while waiting for a lease to run out");
      }
    }
  }

  private static void assertNearHost(Instant instant, String what) {
    Duration off = Duration.between(Instant.now(), instant).abs();
    assertTrue(
        off.compareTo(Duration.ofMinutes(1)) < 0,
        what + " is " + instant + ", " + off + " from this host's clock: not the server's time?");
  }
}
