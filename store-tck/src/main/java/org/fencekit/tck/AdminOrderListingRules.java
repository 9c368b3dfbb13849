package org.fencekit.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.fencekit.store.ClaimId;
import org.fencekit.store.Item;
import org.fencekit.store.OrderRecord;
import org.fencekit.store.OrderStoreAdmin;
import org.fencekit.store.Orphan;
import org.fencekit.store.OrphanId;
import org.fencekit.store.OrphanRecord;
import org.fencekit.store.Page;
import org.fencekit.store.ReconcileResult;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The stuck and failed orders on the store's clock: which orders each listing holds, the failure
 * count and first failure of every record, and the order they are listed in, paged. Part of {@link
 * OrderStoreTck}, over {@link AdminRules}.
 */
public abstract class AdminOrderListingRules extends AdminRules {

  /** For the nested class of {@link OrderStoreTck} that runs this group. */
  AdminOrderListingRules() {}

  /**
   * Orders with a lease that ran out 10 and 5 minutes ago, one that runs out exactly at the cutoff,
   * a live one claimed long ago, a provisioned one, a failed one and one extended: the stuck
   * listing holds exactly those whose lease ran out at least the age ago, oldest lease first,
   * paged; a re-claim takes an order off it.
   *
   * <p>If this fails, check the condition: a claim is held (status PENDING) and leaseExpiresAt is
   * at most now - age on the store's clock, sorted by leaseExpiresAt then session id.
   */
  @Test
  @DisplayName(
      "stuck orders are those whose lease ran out at least the age ago without a settle, oldest lease first")
  void admin_stuckOrders() {
    ownEra();
    Instant t0 = now();
    String a = sid("stuck-a");
    String b = sid("stuck-b");
    String live = sid("stuck-live");
    String done = sid("stuck-done");
    String failed = sid("stuck-failed");
    String extended = sid("stuck-extended");
    claimed(a);
    claimed(store(), snapshot(live), Duration.ofHours(24));
    ClaimId d = claimed(done);
    completeWritten(done, d, ESIM, "the complete");
    ClaimId f = claimed(failed);
    failWritten(failed, f, "declined", "the fail");
    ClaimId e = claimed(extended);
    clock.advance(Duration.ofMinutes(1));
    extendWritten(extended, e, Duration.ofHours(1), "the extend");
    clock.set(t0.plus(Duration.ofMinutes(5)));
    claimed(b);
    clock.set(t0.plus(Duration.ofMinutes(12)));
    Set<String> mine = Set.of(a, b, live, done, failed, extended);
    // a's lease ran out at t0 + 2m, b's at t0 + 7m; now is t0 + 12m
    assertEquals(List.of(a), stuck(Duration.ofMinutes(10), mine, 1), "ran out 10 minutes ago");
    assertEquals(List.of(a, b), stuck(Duration.ofMinutes(5), mine, 1), "ran out 5 minutes ago");
    assertEquals(List.of(a, b), stuck(Duration.ZERO, mine, 2), "every expired lease");
    assertEquals(List.of(), stuck(Duration.ofMinutes(11), mine, 5), "none ran out 11 minutes ago");
    Page<OrderRecord> page = admin().stuckOrders(Duration.ofMinutes(5), null, 5);
    for (OrderRecord order : page.items()) {
      if (mine.contains(order.sessionId())) {
        sameRecord(
            record(order.sessionId(), order.claimId()),
            order,
            "a stuck order as listed",
            order.sessionId(),
            order.claimId());
      }
    }
    claimed(a);
    assertEquals(List.of(b), stuck(Duration.ofMinutes(5), mine, 1), "after a re-claim of a");
  }

  private List<String> stuck(Duration age, Set<String> mine, int pageSize) {
    return listOrders(cursor -> admin().stuckOrders(age, cursor, pageSize), mine, pageSize, true);
  }

  /**
   * Pages through an order listing and returns the session ids of {@code mine}, in order: to its
   * end, or to one page after every one of {@code mine} was seen (the listing spans every order of
   * the store). Fails if an order is listed twice or out of its order.
   */
  private List<String> listOrders(
      java.util.function.Function<String, Page<OrderRecord>> query,
      Set<String> mine,
      int pageSize,
      boolean byLease) {
    List<String> listed = new ArrayList<>();
    Set<String> seen = new HashSet<>();
    String cursor = null;
    Instant last = null;
    boolean onePageMore = false;
    while (true) {
      Page<OrderRecord> page = query.apply(cursor);
      assertNotNull(page, "a listing of orders must never return null");
      assertTrue(page.items().size() <= pageSize, "a page over its size: " + page.items().size());
      for (OrderRecord order : page.items()) {
        assertTrue(seen.add(order.sessionId()), () -> "order listed twice: " + order);
        Instant key = byLease ? order.leaseExpiresAt() : order.failedSince();
        assertNotNull(key, () -> "a listed order has no sort key: " + order);
        if (last != null) {
          Instant previous = last;
          assertFalse(
              key.isBefore(previous),
              () -> "orders must be listed oldest first, but " + order + " came after " + previous);
        }
        last = key;
        if (mine.contains(order.sessionId())) {
          listed.add(order.sessionId());
        }
      }
      if (!page.hasNext() || seen.size() > MAX_LISTED || onePageMore) {
        return listed;
      }
      onePageMore = seen.containsAll(mine);
      cursor = page.nextCursor();
    }
  }

  /**
   * Orders failed once, three times and twice at different times, one failed then claimed again,
   * one failed then provisioned: the failed listing holds exactly the FAILED orders with at least
   * the count or failing at least the age, longest failing first, each with its failure count and
   * the time of its first failure.
   *
   * <p>If this fails, check that a fail that lands counts once (a replay does not), that claims and
   * the complete keep the count and failedSince, and the condition: FAILED and (failures at least
   * n, or failedSince at most now - age), sorted by failedSince then session id.
   */
  @Test
  @DisplayName(
      "failed orders are those FAILED at least n times or for at least the age, longest failing first")
  void admin_failedOrders() {
    ownEra();
    Instant t0 = now();
    String once = sid("failed-once");
    String thrice = sid("failed-thrice");
    String twice = sid("failed-twice");
    String retrying = sid("failed-retrying");
    String recovered = sid("failed-recovered");
    failTimes(once, 1);
    failTimes(retrying, 1);
    claimed(retrying);
    failTimes(recovered, 1);
    ClaimId last = claimed(recovered);
    completeWritten(recovered, last, ESIM, "the complete");
    clock.set(t0.plus(Duration.ofMinutes(1)));
    failTimes(thrice, 3);
    clock.set(t0.plus(Duration.ofMinutes(4)));
    failTimes(twice, 2);
    clock.set(t0.plus(Duration.ofMinutes(10)));
    // failTimes moves the clock a second after each fail
    assertFailures(once, 1, t0);
    assertFailures(retrying, 1, t0.plusSeconds(1));
    assertFailures(recovered, 1, t0.plusSeconds(2));
    assertFailures(thrice, 3, t0.plus(Duration.ofMinutes(1)));
    assertFailures(twice, 2, t0.plus(Duration.ofMinutes(4)));
    Set<String> mine = Set.of(once, thrice, twice, retrying, recovered);
    assertEquals(
        List.of(thrice, twice),
        failed(2, OrderStoreAdmin.MAX_AGE, mine, 1),
        "failed twice or more");
    assertEquals(
        List.of(once, thrice),
        failed(Integer.MAX_VALUE, Duration.ofMinutes(9), mine, 1),
        "failing for 9 minutes or more (the boundary included)");
    assertEquals(
        List.of(once, thrice, twice),
        failed(2, Duration.ofMinutes(9), mine, 2),
        "twice or more, or failing for 9 minutes");
    assertEquals(
        List.of(once, thrice, twice), failed(9, Duration.ZERO, mine, 5), "every FAILED order");
    assertEquals(
        List.of(), failed(4, Duration.ofMinutes(11), mine, 5), "none failed 4 times or 11 minutes");
  }

  private void assertFailures(String sid, int failures, Instant since) {
    OrderRecord found = record(sid, null);
    assertEquals(
        failures,
        found.failures(),
        says("failures counts each fail that landed", sid, null, found));
    assertEquals(
        since,
        found.failedSince(),
        says("failedSince is the time of the first failure", sid, null, found));
  }

  private List<String> failed(int minFailures, Duration age, Set<String> mine, int pageSize) {
    return listOrders(
        cursor -> admin().failedOrders(minFailures, age, cursor, pageSize), mine, pageSize, false);
  }

  /** Claims {@code sid} {@code minutes} after {@code t0} with a lease of {@code leaseMinutes}. */
  private ClaimId claimedAt(Instant t0, int minutes, String sid, int leaseMinutes) {
    clock.set(t0.plus(Duration.ofMinutes(minutes)));
    return claimed(store(), snapshot(sid), Duration.ofMinutes(leaseMinutes));
  }

  /** Fails {@code sid} with {@code claimId} {@code minutes} after {@code t0}. */
  private void failedAt(Instant t0, int minutes, String sid, ClaimId claimId) {
    clock.set(t0.plus(Duration.ofMinutes(minutes)));
    failWritten(sid, claimId, "declined at minute " + minutes, "the fail");
  }

  /**
   * Five orders claimed at minutes 0 to 4, whose leases end at minutes 30, 6, 12, 6 (a short lease
   * extended) and 5: at minute 40 they are listed at every page size by the lease's end, then
   * session id, where the session ids' order and the order of the claims differ from that; those
   * whose lease ran out 30 minutes ago are the first three.
   *
   * <p>If this fails, check that the listing sorts by leaseExpiresAt (as the last claim or extend
   * wrote it), then session id, not by session id or claimedAt, and that its cursor is the same
   * key.
   */
  @Test
  @DisplayName("stuck orders are listed by their lease's end, not by session id nor by claim")
  void admin_stuckListedOldestLeaseFirst() {
    ownEra();
    Instant t0 = now();
    String base = sid("stuck-order");
    String a = base + "-a";
    String b = base + "-b";
    String c = base + "-c";
    String d = base + "-d";
    String e = base + "-e";
    claimedAt(t0, 0, a, 30);
    claimedAt(t0, 1, c, 5);
    claimedAt(t0, 2, b, 10);
    ClaimId extended = claimedAt(t0, 3, d, 1);
    extendWritten(d, extended, Duration.ofMinutes(3), "the extend");
    claimedAt(t0, 4, e, 1);
    clock.set(t0.plus(Duration.ofMinutes(40)));
    Set<String> mine = Set.of(a, b, c, d, e);
    for (int pageSize : new int[] {1, 2, 3, OrderStoreAdmin.MAX_PAGE_SIZE}) {
      assertEquals(
          List.of(e, c, d, b, a),
          stuck(Duration.ZERO, mine, pageSize),
          "with page size "
              + pageSize
              + ", stuck orders whose leases end at minutes 5, 6, 6, 12, 30, by lease end then"
              + " session id");
    }
    assertEquals(
        List.of(e, c, d),
        stuck(Duration.ofMinutes(30), mine, 2),
        "leases that ran out at least 30 minutes ago (by minute 10)");
  }

  /**
   * Four orders created in the order b, a, d, c, failed first at minutes 20, 10, 10 and 5, c again
   * at minute 30: listed at every page size, by count and by age, by the first failure, then
   * session id, where the session ids' order, the order of creation and that of the last failure
   * differ from that.
   *
   * <p>If this fails, check that the listing sorts by failedSince (the first failure, kept by later
   * claims and fails), then session id, not by session id or the last write, and that its cursor is
   * the same key, on both paths: by count and by age.
   */
  @Test
  @DisplayName(
      "failed orders are listed by their first failure, not by session id nor by the last failure")
  void admin_failedListedLongestFailingFirst() {
    ownEra();
    Instant t0 = now();
    String base = sid("failed-order");
    String a = base + "-a";
    String b = base + "-b";
    String c = base + "-c";
    String d = base + "-d";
    ClaimId bToken = claimed(b);
    ClaimId aToken = claimed(a);
    ClaimId dToken = claimed(d);
    ClaimId cToken = claimed(c);
    failedAt(t0, 5, c, cToken);
    failedAt(t0, 10, a, aToken);
    failedAt(t0, 10, d, dToken);
    failedAt(t0, 20, b, bToken);
    clock.set(t0.plus(Duration.ofMinutes(30)));
    failedAt(t0, 30, c, claimed(c));
    clock.set(t0.plus(Duration.ofMinutes(40)));
    Set<String> mine = Set.of(a, b, c, d);
    List<String> expected = List.of(c, a, d, b);
    String order = "failed first at minutes 5, 10, 10, 20, by failedSince then session id";
    for (int pageSize : new int[] {1, 2, 3, OrderStoreAdmin.MAX_PAGE_SIZE}) {
      assertEquals(
          expected,
          failed(1, OrderStoreAdmin.MAX_AGE, mine, pageSize),
          "by count, with page size " + pageSize + ": " + order);
      assertEquals(
          expected,
          failed(Integer.MAX_VALUE, Duration.ZERO, mine, pageSize),
          "by age, with page size " + pageSize + ": " + order);
    }
  }

  /**
   * Eight stuck orders are paged two at a time while orders leave the listing and join it between
   * pages: after the first page, one listed order is completed, one listed order claimed again, an
   * order not yet listed failed, and an order whose lease just ran out joins at the end; after the
   * second page, another order not yet listed is completed. The four that stay stuck throughout are
   * each listed exactly once, in the order of their leases, and no order twice.
   *
   * <p>If this fails, check that the stuck listing's cursor is the last item's position (its
   * leaseExpiresAt and session id) and the next page starts strictly after it, not an offset into
   * the listing (orders that leave it shift an offset past the ones that stayed) nor a snapshot.
   */
  @Test
  @DisplayName(
      "an order stuck throughout is listed exactly once while others leave and join between pages")
  void admin_stuckListedOnceWhileOrdersMove() {
    ownEra();
    Instant t0 = now();
    List<String> sids = new ArrayList<>();
    List<ClaimId> tokens = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      sids.add(sid("stuck-moving-" + i));
      clock.set(t0.plusSeconds(i));
      tokens.add(claimed(store(), snapshot(sids.get(i)), Duration.ofMinutes(1)));
    }
    clock.set(t0.plus(Duration.ofMinutes(10)));
    String joiner = sid("stuck-joiner");
    claimed(store(), snapshot(joiner), Duration.ofMillis(1));
    List<Runnable> moves =
        List.of(
            () -> {
              completeWritten(sids.get(0), tokens.get(0), ESIM, "the complete of order 0");
              claimed(sids.get(1));
              failWritten(sids.get(3), tokens.get(3), "declined", "the fail of order 3");
              clock.advance(Duration.ofMillis(1));
            },
            () -> completeWritten(sids.get(5), tokens.get(5), ESIM, "the complete of order 5"));
    List<String> throughout = List.of(sids.get(2), sids.get(4), sids.get(6), sids.get(7));
    Set<String> mine = new HashSet<>(sids);
    mine.add(joiner);
    List<String> listed =
        whileMoving(
            cursor -> admin().stuckOrders(Duration.ZERO, cursor, 2), mine, throughout, moves);
    listedThroughout(throughout, listed, "stuck orders paged two at a time");
  }

  /**
   * Eight failed orders are paged two at a time, by count, while orders leave the listing and join
   * it between pages: after the first page, one listed order is claimed again, one listed order
   * claimed again and completed, an order not yet listed claimed again, and a new order fails and
   * joins at the end; after the second page, another order not yet listed is claimed again. The
   * four that stay failed throughout are each listed exactly once, longest failing first, and no
   * order twice.
   *
   * <p>If this fails, check that the failed listing's cursor is the last item's position (its
   * failedSince and session id) and the next page starts strictly after it, not an offset into the
   * listing (orders that leave it shift an offset past the ones that stayed) nor a snapshot.
   */
  @Test
  @DisplayName(
      "an order failed throughout is listed exactly once while others leave and join between pages")
  void admin_failedListedOnceWhileOrdersMove() {
    ownEra();
    List<String> sids = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      sids.add(sid("failed-moving-" + i));
      failTimes(sids.get(i), 1);
    }
    String joiner = sid("failed-joiner");
    ClaimId joinerToken = claimed(joiner);
    List<Runnable> moves =
        List.of(
            () -> {
              claimed(sids.get(0));
              ClaimId last = claimed(sids.get(1));
              completeWritten(sids.get(1), last, ESIM, "the complete of order 1");
              claimed(sids.get(3));
              failWritten(joiner, joinerToken, "declined", "the joiner's fail");
            },
            () -> claimed(sids.get(5)));
    List<String> throughout = List.of(sids.get(2), sids.get(4), sids.get(6), sids.get(7));
    Set<String> mine = new HashSet<>(sids);
    mine.add(joiner);
    List<String> listed =
        whileMoving(
            cursor -> admin().failedOrders(1, OrderStoreAdmin.MAX_AGE, cursor, 2),
            mine,
            throughout,
            moves);
    listedThroughout(throughout, listed, "failed orders paged two at a time");
  }

  /**
   * Pages through an order listing, running {@code moves}, one after each of the first pages, and
   * returns the session ids of {@code mine} in the order listed: to the end of the listing, or to
   * one page after the moves are done and every one of {@code throughout} was seen. Fails if one of
   * {@code mine} is listed twice or a page is over its size.
   */
  private List<String> whileMoving(
      java.util.function.Function<String, Page<OrderRecord>> query,
      Set<String> mine,
      List<String> throughout,
      List<Runnable> moves) {
    List<String> listed = new ArrayList<>();
    String cursor = null;
    int pages = 0;
    int seen = 0;
    boolean onePageMore = false;
    while (true) {
      Page<OrderRecord> page = query.apply(cursor);
      assertNotNull(page, "a listing of orders must never return null");
      atMost(2, page.items(), "orders", cursor);
      for (OrderRecord order : page.items()) {
        seen++;
        if (mine.contains(order.sessionId())) {
          String after = "after cursor " + cursor + "; mine as listed so far: " + listed;
          assertFalse(
              listed.contains(order.sessionId()),
              () -> "order '" + order.sessionId() + "' listed twice, " + after);
          listed.add(order.sessionId());
        }
      }
      if (pages < moves.size()) {
        moves.get(pages).run();
      }
      pages++;
      if (!page.hasNext() || seen > MAX_LISTED || onePageMore) {
        return listed;
      }
      onePageMore = pages >= moves.size() && listed.containsAll(throughout);
      cursor = page.nextCursor();
    }
  }

  /** Asserts that each of {@code throughout} is in {@code listed} once, in that order. */
  private static void listedThroughout(
      List<String> throughout, List<String> listed, String situation) {
    List<String> kept = listed.stream().filter(throughout::contains).toList();
    assertEquals(
        throughout,
        kept,
        () ->
            situation
                + ": the orders listed throughout must each be listed once, in order; mine as"
                + " listed: "
                + listed);
  }

  /**
   * An order whose lease ran out exactly 5 minutes ago and one failing for exactly 6 minutes, on
   * the store's clock (set years before the system clock): the stuck listing holds the first for an
   * age of 5 minutes and not for 5 minutes and 1 ms, the failed listing the second for 6 minutes
   * and not for 6 minutes and 1 ms.
   *
   * <p>If this fails, check that the listings' cutoffs (now - expiredFor, now - failingFor) read
   * the clock the store was built with, never System.currentTimeMillis, Instant.now() or the
   * database server's now().
   */
  @Test
  @DisplayName(
      "the ages of the stuck and failed listings are measured on the store's clock, not the system's")
  void admin_agesOnStoreClock() {
    ownEra();
    Instant t0 = now();
    String stuck = sid("age-stuck");
    String failing = sid("age-failed");
    claimed(store(), snapshot(stuck), Duration.ofMinutes(1));
    failTimes(failing, 1);
    clock.set(t0.plus(Duration.ofMinutes(6)));
    String clockSays = " (the store's clock at " + now() + ", the system's at " + Instant.now();
    Duration five = Duration.ofMinutes(5);
    Duration six = Duration.ofMinutes(6);
    Set<String> one = Set.of(stuck);
    assertEquals(
        List.of(stuck),
        stuck(five, one, 5),
        "a lease that ran out 5 minutes ago is stuck for 5 minutes" + clockSays + ")");
    assertEquals(
        List.of(),
        stuck(five.plusMillis(1), one, 5),
        "a lease that ran out 5 minutes ago is not stuck for 5 minutes and 1 ms" + clockSays + ")");
    Set<String> other = Set.of(failing);
    assertEquals(
        List.of(failing),
        failed(Integer.MAX_VALUE, six, other, 5),
        "an order failing for 6 minutes is listed for 6 minutes" + clockSays + ")");
    assertEquals(
        List.of(),
        failed(Integer.MAX_VALUE, six.plusMillis(1), other, 5),
        "an order failing for 6 minutes is not listed for 6 minutes and 1 ms" + clockSays + ")");
  }

  /**
   * For each character key layouts and cursors use ({@code : | { } / % * ? [ ]}, spaces, quotes,
   * non-ASCII letters), three orders (an id, the id followed by it and more, one that starts with
   * it), all claimed at one instant with one lease and failed at one instant, each with an orphan
   * recorded at one instant: so each listing orders them by session id alone. The stuck, failed and
   * orphan listings list each exactly once at page sizes 1, 2 and 1,000; each orphan is found and
   * reconciled by its identity.
   *
   * <p>If this fails, check that a cursor holds the session id and provider order id whole and
   * unambiguously (escaped or encoded, never split on a character an id may hold), that the next
   * page compares the whole id, and that lookups and marks match ids exactly, not as patterns.
   */
  @Test
  @DisplayName(
      "ids with the characters key layouts use are listed once and reconciled like any other")
  void admin_layoutCharactersListed() {
    InputRules.withLayoutCharacters(suite, this::layoutCharactersListed);
  }

  private void layoutCharactersListed(List<String> characters) {
    ownEra();
    Instant t0 = now();
    List<String> ids = new ArrayList<>();
    for (String c : characters) {
      String base = sid("listed");
      ids.addAll(List.of(base, base + c + "x", c + base + c));
    }
    List<ClaimId> tokens = new ArrayList<>();
    for (String id : ids) {
      tokens.add(claimed(store(), snapshot(id), Duration.ofMinutes(1)));
    }
    clock.set(t0.plus(Duration.ofMinutes(10)));
    Set<String> mine = new HashSet<>(ids);
    Set<OrphanId> orphans = new java.util.LinkedHashSet<>();
    ClaimId forged = new ClaimId(7, ClaimId.newNonce());
    for (int i = 0; i < ids.size(); i++) {
      Item item = InputRules.layoutItem(characters, i);
      completeSuperseded(ids.get(i), forged, item, "a complete with a made-up token");
      orphans.add(OrphanId.of(new Orphan(ids.get(i), forged, item, now())));
    }
    for (int pageSize : new int[] {1, 2, OrderStoreAdmin.MAX_PAGE_SIZE}) {
      List<String> listed = stuck(Duration.ZERO, mine, pageSize);
      assertEquals(mine, new HashSet<>(listed), "stuck orders at page size " + pageSize);
      assertEquals(ids.size(), listed.size(), "stuck orders at page size " + pageSize);
      listedOnce(orphans, readMine(orphans, pageSize, null), "orphans at page size " + pageSize);
    }
    for (int i = 0; i < ids.size(); i++) {
      failWritten(ids.get(i), tokens.get(i), "declined", "the fail");
    }
    clock.advance(Duration.ofMinutes(1));
    for (int pageSize : new int[] {1, 2, OrderStoreAdmin.MAX_PAGE_SIZE}) {
      List<String> listed = failed(1, OrderStoreAdmin.MAX_AGE, mine, pageSize);
      assertEquals(mine, new HashSet<>(listed), "failed orders at page size " + pageSize);
      assertEquals(ids.size(), listed.size(), "failed orders at page size " + pageSize);
    }
    for (OrphanId id : orphans) {
      OrphanRecord found = admin().orphan(id).orElse(null);
      assertEquals(id, found == null ? null : found.id(), "the lookup of " + id);
      assertEquals(
          new ReconcileResult.Reconciled(new OrphanRecord(found.orphan(), "refunded", now())),
          admin().reconcile(id, "refunded", now()),
          "reconciling " + id);
    }
  }

  /**
   * With more items than the page size in each listing (stuck orders, failed orders, unreconciled
   * orphans), every page asked for with a size of 1, 2 or 3 holds at most that many.
   *
   * <p>If this fails, check the LIMIT or COUNT of each listing's query: a store that reads one more
   * than the page size to learn whether a next page exists must drop that extra item from the page
   * it returns.
   */
  @Test
  @DisplayName("a page of every listing holds at most the page size asked for")
  void admin_pageHoldsAtMostPageSize() {
    ownEra();
    Instant t0 = now();
    List<Orphan> orphans = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      claimed(store(), snapshot(sid("page-stuck-" + i)), Duration.ofMinutes(1));
      failTimes(sid("page-failed-" + i), 1);
      orphans.addAll(orphansOf(sid("page-orphans-" + i), item(i)));
    }
    clock.set(t0.plus(Duration.ofMinutes(30)));
    for (int size : new int[] {1, 2, 3}) {
      int pageSize = size;
      firstPages(
          size, "stuck orders", cursor -> admin().stuckOrders(Duration.ZERO, cursor, pageSize));
      firstPages(
          size,
          "failed orders",
          cursor -> admin().failedOrders(1, Duration.ZERO, cursor, pageSize));
      firstPages(
          size, "unreconciled orphans", cursor -> admin().unreconciledOrphans(cursor, pageSize));
    }
    listedOnce(ids(orphans), readMine(ids(orphans), 3, null), "orphans at page size 3");
  }

  /** Reads up to three pages of a listing and asserts each holds at most {@code size} items. */
  private static void firstPages(
      int size, String listing, java.util.function.Function<String, Page<?>> query) {
    String cursor = null;
    for (int page = 0; page < 3; page++) {
      Page<?> read = query.apply(cursor);
      atMost(size, read.items(), listing, cursor);
      if (!read.hasNext()) {
        return;
      }
      cursor = read.nextCursor();
    }
  }

  /** Asserts that a page of {@code listing} asked with {@code size} holds at most that many. */
  private static void atMost(int size, List<?> items, String listing, String cursor) {
    assertTrue(
        items.size() <= size,
        () ->
            String.format(
                "a page of %s asked with size %s after cursor %s holds %s: %s",
                listing, size, cursor, items.size(), items));
  }
}
