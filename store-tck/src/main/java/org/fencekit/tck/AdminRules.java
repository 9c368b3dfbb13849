package org.fencekit.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import org.fencekit.store.ClaimId;
import org.fencekit.store.Item;
import org.fencekit.store.OrderRecord;
import org.fencekit.store.OrderStoreAdmin;
import org.fencekit.store.Orphan;
import org.fencekit.store.OrphanId;
import org.fencekit.store.OrphanRecord;
import org.fencekit.store.Page;
import org.fencekit.store.ReconcileResult;
import org.fencekit.store.UnknownOrphanException;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The operator's rules, for a store that implements {@link OrderStoreAdmin} (skipped, saying so,
 * for one that does not): the unreconciled orphans across orders, paged without skipping or
 * repeating, reconciling (idempotent, concurrent, never deleting), lookups, and the stuck and
 * failed orders on the store's clock. Ids start with {@code admin_}. Part of {@link OrderStoreTck}.
 *
 * <p>The listings span every order of the store, other tests' included. Each rule therefore moves
 * the clock to an era of its own, years before {@link TestClock#START} and older than every earlier
 * rule's, so its orphans and orders come first and others' leases and failures are in its future;
 * it judges only its own items and checks that no item at all is listed twice.
 */
public abstract class AdminRules extends LinearizabilityRules {

  /** Only {@link OrderStoreTck} extends the chain. */
  AdminRules() {}

  /** How many items a listing may show before a rule gives up on it ending. */
  private static final int MAX_LISTED = 20_000;

  /** The test's store as an {@link OrderStoreAdmin}; skips the rule if it is not one. */
  OrderStoreAdmin admin() {
    Assumptions.assumeTrue(
        store() instanceof OrderStoreAdmin,
        () ->
            "admin rule skipped: the store "
                + store()
                + " does not implement org.fencekit.store.OrderStoreAdmin; implement it (extend"
                + " FencedAdminOrderStore over an AdminStorage) to run these rules");
    return (OrderStoreAdmin) store();
  }

  /**
   * Moves the clock to this rule's own era: ten years and a day per rule before {@link
   * TestClock#START}, each rule older than the ones before it.
   */
  private void ownEra() {
    admin();
    clock.set(TestClock.START.minus(Duration.ofDays(3650 + SEQUENCE.incrementAndGet())));
  }

  /**
   * Orphans {@code items} on a new order: a claim whose lease runs out, a newer claim, then a stale
   * complete per item, all at one instant. The clock ends {@link #LEASE} later than it started.
   */
  private List<Orphan> orphansOf(String sid, Item... items) {
    ClaimId stale = claimed(sid);
    clock.advance(LEASE);
    claimed(sid);
    List<Orphan> made = new ArrayList<>();
    for (Item item : items) {
      superseded(store().complete(sid, stale, item), "the stale complete", sid, stale);
      made.add(new Orphan(sid, stale, item, now()));
    }
    return made;
  }

  private static Item item(int n) {
    return new Item("prov-orphan-" + n, "payload " + n);
  }

  private static Set<OrphanId> ids(List<Orphan> orphans) {
    return orphans.stream().map(OrphanId::of).collect(Collectors.toCollection(LinkedHashSet::new));
  }

  /**
   * Reads the unreconciled orphans page by page until every orphan of {@code mine} was seen and one
   * more page was read (or the listing ended), and returns those of {@code mine} in the order
   * listed. Fails if any item is listed twice, is reconciled, or a page is over {@code pageSize}.
   * {@code afterFirstPage} runs once, between the first page and the second, and may add to {@code
   * mine}.
   */
  private List<OrphanRecord> readMine(
      Set<OrphanId> mine, int pageSize, Consumer<List<OrphanRecord>> afterFirstPage) {
    List<OrphanRecord> listed = new ArrayList<>();
    Set<OrphanId> seen = new HashSet<>();
    String cursor = null;
    boolean first = true;
    boolean onePageMore = false;
    while (true) {
      Page<OrphanRecord> page = admin().unreconciledOrphans(cursor, pageSize);
      assertNotNull(page, "unreconciledOrphans must never return null");
      assertTrue(
          page.items().size() <= pageSize,
          () -> "a page of size " + pageSize + " listed " + page.items().size() + " orphans");
      for (OrphanRecord orphan : page.items()) {
        if (!seen.add(orphan.id())) {
          fail(
              "the listing of unreconciled orphans repeated the "
                  + orphan.id()
                  + " (page size "
                  + pageSize
                  + ", after cursor "
                  + cursor
                  + "); mine in the order listed so far: "
                  + listed);
        }
        assertFalse(
            orphan.reconciled(), () -> "a reconciled orphan was listed as unreconciled: " + orphan);
        if (mine.contains(orphan.id())) {
          listed.add(orphan);
        }
      }
      if (seen.size() > MAX_LISTED) {
        fail("the listing did not end after " + MAX_LISTED + " orphans; mine listed: " + listed);
      }
      if (first && afterFirstPage != null) {
        afterFirstPage.accept(List.copyOf(page.items()));
      }
      first = false;
      if (!page.hasNext()) {
        return listed;
      }
      if (seen.containsAll(mine)) {
        if (onePageMore) {
          return listed;
        }
        onePageMore = true;
      }
      cursor = page.nextCursor();
    }
  }

  /** Asserts that {@code listed} is {@code expected}, each once, and oldest first. */
  private static void listedOnce(
      Set<OrphanId> expected, List<OrphanRecord> listed, String situation) {
    List<OrphanId> ids = listed.stream().map(OrphanRecord::id).toList();
    Set<OrphanId> missing = new LinkedHashSet<>(expected);
    ids.forEach(missing::remove);
    assertEquals(
        Set.of(),
        missing,
        () ->
            situation
                + ": the listing skipped these orphans; listed (mine, in order): "
                + ids
                + ", expected each of "
                + expected);
    assertEquals(
        expected.size(),
        ids.size(),
        () ->
            situation
                + ": the listing listed "
                + ids
                + ", expected exactly "
                + expected
                + " each once");
    for (int i = 1; i < listed.size(); i++) {
      Instant before = listed.get(i - 1).orphan().recordedAt();
      Instant after = listed.get(i).orphan().recordedAt();
      int at = i;
      assertFalse(
          after.isBefore(before),
          () ->
              situation
                  + ": orphans must be listed oldest first, but "
                  + listed.get(at).id()
                  + " recorded at "
                  + after
                  + " comes after "
                  + listed.get(at - 1).id()
                  + " recorded at "
                  + before);
    }
  }

  /**
   * Seven orphans over three orders, three of them recorded at one instant by one token, are listed
   * at every page size each exactly once, oldest first, and in the same order whatever the page
   * size.
   *
   * <p>If this fails, check that the cursor is the whole sort key of the last item (recordedAt,
   * then the orphan's identity) and that the next page starts strictly after it, in the same order
   * the query sorts by.
   */
  @Test
  @DisplayName(
      "the unreconciled orphans are listed oldest first, each once, at every page size, ties included")
  void admin_pagesNeitherSkipNorRepeat() {
    ownEra();
    List<Orphan> all = new ArrayList<>();
    all.addAll(orphansOf(sid("pages-tied"), item(1), item(2), item(3)));
    clock.advance(Duration.ofMillis(7));
    all.addAll(orphansOf(sid("pages-a"), item(4)));
    all.addAll(orphansOf(sid("pages-b"), item(5), item(6)));
    clock.advance(Duration.ofSeconds(3));
    all.addAll(orphansOf(sid("pages-c"), item(7)));
    Set<OrphanId> mine = ids(all);
    List<OrphanId> firstOrder = null;
    for (int pageSize : new int[] {1, 2, 3, 7, OrderStoreAdmin.MAX_PAGE_SIZE}) {
      List<OrphanRecord> listed = readMine(mine, pageSize, null);
      listedOnce(mine, listed, "with page size " + pageSize);
      List<OrphanId> order = listed.stream().map(OrphanRecord::id).toList();
      if (firstOrder == null) {
        firstOrder = order;
      }
      assertEquals(
          firstOrder,
          order,
          "with page size " + pageSize + " the orphans came in another order than with size 1");
      for (OrphanRecord orphan : listed) {
        assertTrue(
            all.contains(orphan.orphan()),
            () -> "a listed orphan differs from the one recorded: " + orphan);
      }
    }
  }

  /**
   * Claims {@code sid} {@code n + 1} times, each after the lease before ran out, and returns the
   * first {@code n} tokens, all superseded. The clock ends {@code n + 1} leases later.
   */
  private List<ClaimId> staleTokens(String sid, int n) {
    List<ClaimId> claimIds = new ArrayList<>();
    for (int i = 0; i <= n; i++) {
      claimIds.add(claimed(sid));
      clock.advance(LEASE);
    }
    return claimIds.subList(0, n);
  }

  /** Records the orphan of a stale complete by {@code stale}, at the clock's instant. */
  private Orphan orphanOf(String sid, ClaimId stale, String providerOrderId) {
    Item item = new Item(providerOrderId, "payload of " + providerOrderId);
    superseded(store().complete(sid, stale, item), "a stale complete", sid, stale);
    return new Orphan(sid, stale, item, now());
  }

  /** Records the orphan of a stale complete by {@code stale}, {@code minutes} after {@code t}. */
  private Orphan orphanAt(Instant t, int minutes, String sid, ClaimId stale, String providerId) {
    clock.set(t.plus(Duration.ofMinutes(minutes)));
    return orphanOf(sid, stale, providerId);
  }

  /** An orphan's sort key, for messages: recordedAt, session id, token, provider order id. */
  private static String key(Orphan orphan) {
    return orphan.recordedAt()
        + " "
        + orphan.sessionId()
        + " "
        + orphan.claimId()
        + " "
        + orphan.item().providerOrderId();
  }

  /**
   * Reads the unreconciled orphans at each page size and asserts that those of {@code expected} are
   * listed each once and exactly in its order.
   */
  private void listedInOrder(List<Orphan> expected, String situation, int... pageSizes) {
    Set<OrphanId> mine = ids(expected);
    for (int pageSize : pageSizes) {
      List<OrphanRecord> listed = readMine(mine, pageSize, null);
      assertEquals(
          List.copyOf(mine),
          listed.stream().map(OrphanRecord::id).toList(),
          () ->
              situation
                  + ", with page size "
                  + pageSize
                  + ": the orphans must be listed each once by (recordedAt, session id, the"
                  + " token's fence, its nonce, provider order id); expected "
                  + expected.stream().map(AdminRules::key).toList()
                  + " but listed "
                  + listed.stream().map(o -> key(o.orphan())).toList());
    }
  }

  /**
   * Six orphans over four orders, recorded at minutes 40, 10, 20, 30, 15 and 10 (the last tied with
   * the second): listed at every page size by their instant, then by identity, where the order they
   * were recorded in, their identities' order and their session ids' order all differ from that.
   *
   * <p>If this fails, check that the listing sorts by recordedAt first (not by the identity or
   * primary key, not by a serial id or the order of insertion), then by the identity, and that its
   * cursor is the same key.
   */
  @Test
  @DisplayName(
      "the unreconciled orphans are listed oldest first, not by identity nor in the order recorded")
  void admin_orphansListedOldestFirst() {
    ownEra();
    String base = sid("oldest");
    String a = base + "-a";
    String b = base + "-b";
    String c = base + "-c";
    String d = base + "-d";
    ClaimId a1 = staleTokens(a, 1).get(0);
    List<ClaimId> bs = staleTokens(b, 2);
    ClaimId c1 = staleTokens(c, 1).get(0);
    ClaimId d1 = staleTokens(d, 1).get(0);
    Instant t = now();
    Orphan a40 = orphanAt(t, 40, a, a1, "prov-1");
    Orphan c10 = orphanAt(t, 10, c, c1, "prov-2");
    Orphan b20 = orphanAt(t, 20, b, bs.get(1), "prov-1");
    Orphan b30 = orphanAt(t, 30, b, bs.get(0), "prov-1");
    Orphan c15 = orphanAt(t, 15, c, c1, "prov-1");
    Orphan d10 = orphanAt(t, 10, d, d1, "prov-1");
    listedInOrder(
        List.of(c10, d10, c15, b20, b30, a40),
        "six orphans recorded at minutes 40, 10, 20, 30, 15, 10",
        1,
        2,
        4,
        OrderStoreAdmin.MAX_PAGE_SIZE);
  }

  /**
   * Four orphans of one order recorded at one instant with one provider order id by four tokens:
   * fences 2, 1, 1 and 2, two of them made up (fence 1 with the largest nonce, fence 2 with the
   * smallest): listed at every page size by fence, then nonce, so a page boundary falls between
   * every two of them and none is skipped or repeated.
   *
   * <p>If this fails, check that the token (fence, then nonce) is part of the sort key and of the
   * cursor, between the session id and the provider order id: orphans that differ only in the token
   * are distinct.
   */
  @Test
  @DisplayName(
      "orphans that differ only in their token are each listed once, in token order, across page boundaries")
  void admin_orphanTokenInSortKey() {
    ownEra();
    String sid = sid("token-key");
    List<ClaimId> stale = staleTokens(sid, 2);
    ClaimId first = stale.get(0);
    ClaimId second = stale.get(1);
    ClaimId madeUpFirst = new ClaimId(1, "f".repeat(32));
    ClaimId madeUpSecond = new ClaimId(2, "0".repeat(32));
    Orphan o2 = orphanOf(sid, second, "prov-tied");
    Orphan m1 = orphanOf(sid, madeUpFirst, "prov-tied");
    Orphan o1 = orphanOf(sid, first, "prov-tied");
    Orphan m2 = orphanOf(sid, madeUpSecond, "prov-tied");
    listedInOrder(
        List.of(o1, m1, m2, o2),
        "four tokens' orphans at one instant with one provider order id",
        1,
        2,
        3,
        OrderStoreAdmin.MAX_PAGE_SIZE);
  }

  /**
   * Six orphans of one order recorded at one instant with one provider order id by made-up tokens
   * of fences 2^53 - 1, 2^53, 2^53 + 1, 2^53 + 2, {@code Long.MAX_VALUE - 1} and {@code
   * Long.MAX_VALUE}, the nonces falling as the fences rise, recorded out of order: listed by fence
   * at every page size, each once; after the one of 2^53 + 1 is reconciled, exactly the other five.
   *
   * <p>If this fails, check that the fence is kept as an exact 64-bit integer in the index, the
   * sort and the cursor (a double, a JSON or Lua number, holds only 53 bits: 2^53 + 1 becomes
   * 2^53), and that a reconcile takes off the index exactly the orphan it marks.
   */
  @Test
  @DisplayName(
      "orphans of fences above 2^53 are listed in fence order across page boundaries, and reconciled one by one")
  void admin_hugeFenceOrphansPaged() {
    ownEra();
    String sid = sid("huge-fences");
    claimed(sid);
    long two53 = 1L << 53;
    long[] fences = {two53 - 1, two53, two53 + 1, two53 + 2, Long.MAX_VALUE - 1, Long.MAX_VALUE};
    Orphan[] byFence = new Orphan[fences.length];
    for (int i : new int[] {3, 5, 1, 0, 4, 2}) {
      String nonce = Integer.toHexString(15 - i).repeat(32);
      byFence[i] = orphanOf(sid, new ClaimId(fences[i], nonce), "prov-huge");
    }
    listedInOrder(
        List.of(byFence),
        "six orphans of fences around 2^53 and 2^63",
        1,
        2,
        4,
        OrderStoreAdmin.MAX_PAGE_SIZE);
    OrphanId reconciled = OrphanId.of(byFence[2]);
    assertInstanceOf(
        ReconcileResult.Reconciled.class,
        admin().reconcile(reconciled, "voided at the provider", now()),
        "reconciling " + reconciled);
    List<Orphan> rest = new ArrayList<>(List.of(byFence));
    rest.remove(2);
    listedInOrder(rest, "after reconciling the orphan of fence 2^53 + 1", 1, 3);
  }

  /**
   * Four orphans; after the first page of two is read, another orphan is recorded (later): the rest
   * of the listing has the three not yet read and the new one, each once.
   *
   * <p>If this fails, check that each page is a fresh query after the cursor's position (not a
   * snapshot taken when the listing began, and not an offset).
   */
  @Test
  @DisplayName(
      "an orphan recorded while the listing is being read is listed once, and none skipped")
  void admin_orphanRecordedWhileReading() {
    ownEra();
    List<Orphan> all = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      all.addAll(orphansOf(sid("reading-" + i), item(i)));
    }
    Set<OrphanId> mine = ids(all);
    String late = sid("reading-late");
    List<OrphanRecord> listed =
        readMine(
            mine,
            2,
            firstPage -> {
              clock.advance(Duration.ofSeconds(1));
              mine.addAll(ids(orphansOf(late, item(9))));
            });
    listedOnce(mine, listed, "with an orphan recorded after the first page");
    assertEquals(
        late,
        listed.get(listed.size() - 1).orphan().sessionId(),
        () -> "the orphan recorded last must be listed last: " + listed);
  }

  /**
   * Six orphans; after the first page of two is read, the first one listed and the fourth are
   * reconciled: the rest of the listing has the third, fifth and sixth, none skipped.
   *
   * <p>If this fails, check that the cursor is a position (the last item's sort key), not an
   * offset: an orphan that leaves the list must not shift the next page.
   */
  @Test
  @DisplayName("orphans reconciled while the listing is being read make it skip no other orphan")
  void admin_reconcileWhileReadingSkipsNothing() {
    ownEra();
    List<Orphan> all = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      all.addAll(orphansOf(sid("while-" + i), item(i)));
    }
    Set<OrphanId> mine = ids(all);
    OrphanId fourth = OrphanId.of(all.get(3));
    List<OrphanRecord> listed =
        readMine(
            mine,
            2,
            firstPage -> {
              OrphanRecord firstMine =
                  firstPage.stream()
                      .filter(o -> mine.contains(o.id()))
                      .findFirst()
                      .orElseThrow(() -> new AssertionError("my oldest orphan is not on page 1"));
              admin().reconcile(firstMine.id(), "refunded", now());
              admin().reconcile(fourth, "refunded", now());
              mine.remove(fourth);
            });
    Set<OrphanId> expected = new LinkedHashSet<>(mine);
    assertEquals(
        expected.size(),
        listed.size(),
        () ->
            "the listing must show every orphan but the one reconciled before it was reached: "
                + listed.stream().map(OrphanRecord::id).toList());
    listedOnce(expected, listed, "with orphans reconciled after the first page");
  }

  /**
   * Eight threads released together reconcile one orphan with notes of three kinds and instants of
   * their own: exactly one note and instant are recorded, every caller is answered with them, those
   * whose note it is answered Reconciled and the others AlreadyReconciled.
   *
   * <p>If this fails, check that the mark is one atomic step that writes only when no note is
   * recorded (UPDATE ... WHERE reconciled_at IS NULL, a script, a lock), and that every answer is
   * read after it.
   */
  @Test
  @DisplayName("concurrent marks of one orphan record one note, and every caller is told which")
  void admin_concurrentMarksRecordOne() {
    ownEra();
    String sid = sid("concurrent-marks");
    Orphan orphan = orphansOf(sid, item(1)).get(0);
    OrphanId id = OrphanId.of(orphan);
    Instant base = now();
    List<ReconcileResult> results =
        Race.run(8, i -> admin().reconcile(id, "note " + (i % 3), base.plusMillis(i)));
    OrphanRecord recorded = admin().orphan(id).orElseThrow(() -> new AssertionError("lost " + id));
    assertTrue(recorded.reconciled(), () -> "after the marks the orphan is " + recorded);
    assertEquals(orphan, recorded.orphan(), "a mark must not change the orphan");
    int reconciled = 0;
    for (int i = 0; i < results.size(); i++) {
      ReconcileResult result = results.get(i);
      String note = "note " + (i % 3);
      int caller = i;
      assertEquals(
          recorded,
          result.orphan(),
          () ->
              "caller "
                  + caller
                  + " ("
                  + note
                  + ") was answered "
                  + result
                  + " but the store holds "
                  + recorded);
      if (note.equals(recorded.note())) {
        reconciled++;
        assertInstanceOf(
            ReconcileResult.Reconciled.class,
            result,
            () ->
                "caller " + caller + "'s note is the one recorded, so it is Reconciled: " + result);
      } else {
        assertInstanceOf(
            ReconcileResult.AlreadyReconciled.class,
            result,
            () -> "caller " + caller + "'s note is not the one recorded: " + result);
      }
    }
    int winners = reconciled;
    assertTrue(winners >= 1, "at least the caller whose note was recorded is Reconciled");
    long instant = recorded.reconciledAt().toEpochMilli() - base.toEpochMilli();
    assertTrue(
        instant >= 0 && instant < 8 && ("note " + (instant % 3)).equals(recorded.note()),
        () -> "the recorded note and instant must come from one caller: " + recorded);
  }

  /**
   * How many orphans {@code admin_concurrentMarksEveryOrphan} races marks on, one after another;
   * fewer for a slow backend.
   */
  protected int markRaceRounds() {
    return 48;
  }

  /**
   * {@link #stressThreads()} threads mark each of {@link #markRaceRounds()} (48) orphans together,
   * released at once before each one ({@link Race#rounds}), each thread with a note and an instant
   * of its own: on every orphan exactly one caller is Reconciled, every caller is answered the note
   * and instant recorded, and they come from one caller. A check-then-act whose window is a few
   * instructions wide loses some of these races.
   *
   * <p>If this fails, check that the check and the write of a mark are one atomic step (UPDATE ...
   * WHERE reconciled_at IS NULL, one script, the write under the lock the read took), not a read
   * followed by a write, however short the gap between them.
   */
  @Test
  @DisplayName(
      "marks raced on each of many orphans record one note per orphan, and every caller is told which")
  void admin_concurrentMarksEveryOrphan() {
    ownEra();
    OrderStoreAdmin admin = admin();
    int threads = stressThreads();
    int races = markRaceRounds();
    Item[] items = new Item[races];
    for (int i = 0; i < races; i++) {
      items[i] = item(i);
    }
    List<Orphan> orphans = orphansOf(sid("mark-races"), items);
    Instant base = now();
    List<List<ReconcileResult>> answers =
        Race.rounds(
            threads,
            races,
            (k, race) ->
                admin.reconcile(OrphanId.of(orphans.get(race)), "note " + k, base.plusMillis(k)));
    for (int o = 0; o < races; o++) {
      OrphanId id = OrphanId.of(orphans.get(o));
      OrphanRecord recorded = admin.orphan(id).orElseThrow(() -> new AssertionError("lost " + id));
      int race = o;
      assertTrue(recorded.reconciled(), () -> "after race " + race + " the orphan is " + recorded);
      int winner = (int) (recorded.reconciledAt().toEpochMilli() - base.toEpochMilli());
      assertEquals(
          "note " + winner,
          recorded.note(),
          () ->
              "race "
                  + race
                  + ": the note and instant recorded come from two callers: "
                  + recorded);
      for (int k = 0; k < threads; k++) {
        ReconcileResult answer = answers.get(k).get(o);
        int caller = k;
        assertEquals(
            recorded,
            answer.orphan(),
            () ->
                "race "
                    + race
                    + " of "
                    + races
                    + ": caller "
                    + caller
                    + " (note "
                    + caller
                    + ") was answered "
                    + answer
                    + " but the store holds "
                    + recorded
                    + "; did two callers both find the orphan unmarked and each write its note?");
        assertEquals(
            caller == winner,
            answer instanceof ReconcileResult.Reconciled,
            () ->
                "race "
                    + race
                    + ": only the caller whose note is recorded (caller "
                    + winner
                    + ") is Reconciled, the others AlreadyReconciled; caller "
                    + caller
                    + " was answered "
                    + answer);
      }
    }
  }

  /**
   * A mark, then the same note again later: both Reconciled with the note and the first instant (to
   * the millisecond); the orphan is still listed by {@code orphans(sessionId)} with its item and
   * token unchanged.
   *
   * <p>If this fails, check that a mark writes only when none is recorded and answers what is
   * recorded, and that it never deletes or rewrites the orphan's row.
   */
  @Test
  @DisplayName(
      "the same mark again answers the same, and a mark never deletes the orphan or changes its item or token")
  void admin_markIdempotent() {
    ownEra();
    String sid = sid("mark-twice");
    Orphan orphan = orphansOf(sid, item(1)).get(0);
    OrphanId id = OrphanId.of(orphan);
    Instant first = now().plusNanos(123_456);
    ReconcileResult marked = admin().reconcile(id, "refunded", first);
    OrphanRecord expected = new OrphanRecord(orphan, "refunded", now());
    assertEquals(
        new ReconcileResult.Reconciled(expected),
        marked,
        "the first mark, its instant truncated to the millisecond");
    clock.advance(Duration.ofMinutes(3));
    assertEquals(
        new ReconcileResult.Reconciled(expected),
        admin().reconcile(id, "refunded", now()),
        "the same note again answers what was recorded first");
    assertEquals(Optional.of(expected), admin().orphan(id), "the lookup after two marks");
    assertEquals(
        List.of(orphan),
        orphans(store(), sid),
        says("orphans(sessionId) keeps a reconciled orphan as it was", sid, orphan.claimId()));
  }

  /**
   * A mark, then another note: AlreadyReconciled with the first note and instant; nothing changes.
   *
   * <p>If this fails, check that a mark on a reconciled orphan writes nothing and answers the
   * recorded note.
   */
  @Test
  @DisplayName("another note on a reconciled orphan changes nothing and answers what is recorded")
  void admin_otherNoteAnswersRecorded() {
    ownEra();
    String sid = sid("other-note");
    Orphan orphan = orphansOf(sid, item(1)).get(0);
    OrphanId id = OrphanId.of(orphan);
    admin().reconcile(id, "refunded", now());
    OrphanRecord expected = new OrphanRecord(orphan, "refunded", now());
    clock.advance(Duration.ofSeconds(30));
    assertEquals(
        new ReconcileResult.AlreadyReconciled(expected),
        admin().reconcile(id, "delivered by hand", now()),
        "another note must answer the recorded one");
    assertEquals(Optional.of(expected), admin().orphan(id), "the lookup after another note");
  }

  /**
   * Three orphans; the middle one reconciled: the listing shows the other two, the lookup shows it
   * reconciled, and {@code orphans(sessionId)} still lists all three as recorded.
   *
   * <p>If this fails, check that the listing filters on the reconciliation (reconciled_at IS NULL)
   * and that a mark never deletes.
   */
  @Test
  @DisplayName("a reconciled orphan leaves the unreconciled list and is kept")
  void admin_reconciledLeavesList() {
    ownEra();
    String sid = sid("leaves-list");
    List<Orphan> three = new ArrayList<>();
    ClaimId stale = claimed(sid);
    clock.advance(LEASE);
    claimed(sid);
    for (int i = 0; i < 3; i++) {
      superseded(store().complete(sid, stale, item(i)), "stale complete " + i, sid, stale);
      three.add(new Orphan(sid, stale, item(i), now()));
      clock.advance(Duration.ofMillis(1));
    }
    OrphanId middle = OrphanId.of(three.get(1));
    assertInstanceOf(
        ReconcileResult.Reconciled.class,
        admin().reconcile(middle, "voided at the provider", now()));
    Set<OrphanId> rest = ids(List.of(three.get(0), three.get(2)));
    List<OrphanRecord> listed = readMine(rest, 1, null);
    listedOnce(rest, listed, "after reconciling the middle one");
    assertFalse(
        listed.stream().anyMatch(o -> o.id().equals(middle)),
        "the reconciled orphan must leave the list");
    assertEquals(
        Optional.of(new OrphanRecord(three.get(1), "voided at the provider", now())),
        admin().orphan(middle),
        "the lookup of the reconciled orphan");
    assertEquals(
        three,
        orphans(store(), sid),
        says("orphans(sessionId) lists all three, as recorded", sid, stale));
  }

  /**
   * Orphans that share a token, a provider order id or an order with each other are each found by
   * their own identity; an identity never recorded is empty, and reconciling it throws
   * UnknownOrphanException and creates nothing.
   *
   * <p>If this fails, check that the lookup matches every part of the identity: session id, the
   * token's fence and nonce, and the provider order id.
   */
  @Test
  @DisplayName(
      "an orphan is found by its identity (session, token, provider order id), and an unknown one is not")
  void admin_lookupByIdentity() {
    ownEra();
    String x = sid("lookup-x");
    String y = sid("lookup-y");
    ClaimId first = claimed(x);
    clock.advance(LEASE);
    ClaimId second = claimed(x);
    clock.advance(LEASE);
    claimed(x);
    Item a = new Item("prov-shared", "A");
    Item b = new Item("prov-other", "B");
    superseded(store().complete(x, first, a), "stale complete a", x, first);
    superseded(store().complete(x, first, b), "stale complete b", x, first);
    superseded(store().complete(x, second, a), "stale complete a by the second token", x, second);
    List<Orphan> expected = new ArrayList<>(orphans(store(), x));
    expected.addAll(orphansOf(y, new Item("prov-shared", "Y")));
    assertEquals(4, expected.size(), () -> "four orphans recorded, found " + expected);
    for (Orphan orphan : expected) {
      OrphanId id = OrphanId.of(orphan);
      assertEquals(
          Optional.of(OrphanRecord.unreconciled(orphan)),
          admin().orphan(id),
          "the lookup of " + id);
    }
    OrphanId unknown = new OrphanId(x, first, "prov-never");
    assertEquals(Optional.empty(), admin().orphan(unknown), "an identity never recorded");
    assertEquals(
        Optional.empty(),
        admin().orphan(new OrphanId(x, new ClaimId(first.fence(), second.nonce()), "prov-shared")),
        "a token with another nonce");
    UnknownOrphanException thrown =
        assertThrows(
            UnknownOrphanException.class,
            () -> admin().reconcile(unknown, "refunded", now()),
            "reconciling an orphan never recorded");
    assertEquals(unknown, thrown.orphanId());
    assertEquals(Optional.empty(), admin().orphan(unknown), "reconciling the unknown created it");
    assertEquals(
        3, orphans(store(), x).size(), "reconciling the unknown changed the order's orphans");
  }

  /**
   * An orphan bought by a token of the largest fence a token can carry (a forged or corrupt token,
   * {@code Long.MAX_VALUE}) is found by its identity, listed, and reconciled like any other, and
   * then leaves the listing.
   *
   * <p>If this fails, check that the token's fence is kept exactly wherever the orphan is indexed
   * and compared (a fence converted to a floating-point number loses its low digits above 2^53).
   */
  @Test
  @DisplayName(
      "an orphan of a token with the largest fence is found, listed and reconciled like any other")
  void admin_edgeTokenOrphan() {
    ownEra();
    String sid = sid("edge-token");
    claimed(sid);
    ClaimId forged = new ClaimId(Long.MAX_VALUE, ClaimId.newNonce());
    Item item = new Item("prov-edge", "payload edge");
    superseded(
        store().complete(sid, forged, item), "a complete with the largest fence", sid, forged);
    Orphan orphan = new Orphan(sid, forged, item, now());
    OrphanId id = OrphanId.of(orphan);
    assertEquals(
        Optional.of(OrphanRecord.unreconciled(orphan)), admin().orphan(id), "the lookup of " + id);
    listedOnce(Set.of(id), readMine(Set.of(id), 100, null), "the largest fence's orphan");
    assertInstanceOf(
        ReconcileResult.Reconciled.class,
        admin().reconcile(id, "voided at the provider", now()),
        "reconciling " + id);
    assertEquals(
        List.of(),
        readMine(Set.of(id), 100, null),
        "a reconciled orphan of the largest fence is still listed as unreconciled");
  }

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
    written(store().complete(done, d, ESIM), "the complete", done, d);
    ClaimId f = claimed(failed);
    written(store().fail(failed, f, "declined"), "the fail", failed, f);
    ClaimId e = claimed(extended);
    clock.advance(Duration.ofMinutes(1));
    written(store().extend(extended, e, Duration.ofHours(1)), "the extend", extended, e);
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
    written(store().complete(recovered, last, ESIM), "the complete", recovered, last);
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

  private void failTimes(String sid, int times) {
    for (int i = 0; i < times; i++) {
      ClaimId claimId = claimed(sid);
      written(store().fail(sid, claimId, "declined " + i), "fail " + i, sid, claimId);
      written(store().fail(sid, claimId, "declined " + i), "the replay of fail " + i, sid, claimId);
      clock.advance(Duration.ofSeconds(1));
    }
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
    written(store().fail(sid, claimId, "declined at minute " + minutes), "the fail", sid, claimId);
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
    written(store().extend(d, extended, Duration.ofMinutes(3)), "the extend", d, extended);
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
   * Two orphans, two stuck orders and two failed orders, so each listing has a next page at page
   * size 1: each listing's cursor is taken by that listing and refused by the other two with an
   * IllegalArgumentException naming the cursor.
   *
   * <p>If this fails, check that a cursor carries the listing that wrote it and that each listing
   * refuses another's before it reads a position from it: the stuck and failed listings' positions
   * have the same shape (an instant and a session id), so only that tells them apart.
   */
  @Test
  @DisplayName("a cursor of one listing is refused by the others, naming the cursor")
  void admin_cursorOfAnotherListingRefused() {
    ownEra();
    String base = sid("cursors");
    orphansOf(base + "-orphans", item(1), item(2));
    claimed(base + "-stuck-a");
    claimed(base + "-stuck-b");
    failTimes(base + "-failed-a", 1);
    failTimes(base + "-failed-b", 1);
    clock.advance(Duration.ofHours(1));
    OrderStoreAdmin admin = admin();
    Map<String, java.util.function.Function<String, Page<?>>> listings = new LinkedHashMap<>();
    listings.put("unreconciledOrphans", cursor -> admin.unreconciledOrphans(cursor, 1));
    listings.put("stuckOrders", cursor -> admin.stuckOrders(Duration.ZERO, cursor, 1));
    listings.put("failedOrders", cursor -> admin.failedOrders(1, Duration.ZERO, cursor, 1));
    listings.forEach(
        (writer, list) -> {
          String cursor = list.apply(null).nextCursor();
          assertNotNull(cursor, () -> writer + " of at least two items has a next page at size 1");
          assertNotNull(list.apply(cursor), () -> writer + " must take its own cursor " + cursor);
          listings.forEach(
              (reader, other) -> {
                if (reader.equals(writer)) {
                  return;
                }
                String what = "a cursor of " + writer + " (" + cursor + ") passed to " + reader;
                IllegalArgumentException refused =
                    assertThrows(
                        IllegalArgumentException.class,
                        () -> other.apply(cursor),
                        () -> what + " must be refused with an IllegalArgumentException");
                assertTrue(
                    String.valueOf(refused.getMessage()).contains("cursor"),
                    () -> what + " was refused without naming 'cursor': " + refused.getMessage());
              });
        });
  }

  /**
   * Every bad argument of the admin calls is rejected naming it: page sizes 0 and one over the
   * largest, a cursor that is not one, negative and too large ages, a count under 1, a null
   * identity, a null, blank, too long or multi-line note, a null instant; nothing is marked.
   *
   * <p>If this fails, check that every argument is validated before the backend is asked.
   */
  @Test
  @DisplayName(
      "bad arguments of the admin calls are rejected naming the argument, and mark nothing")
  void admin_badArguments() {
    ownEra();
    String sid = sid("admin-bad");
    List<Orphan> two = orphansOf(sid, item(1), item(2));
    OrphanId id = OrphanId.of(two.get(0));
    OrderStoreAdmin admin = admin();
    int over = OrderStoreAdmin.MAX_PAGE_SIZE + 1;
    rejects("pageSize", sid, "a page size of 0", () -> admin.unreconciledOrphans(null, 0));
    rejects("pageSize", sid, "a page size of " + over, () -> admin.unreconciledOrphans(null, over));
    rejects(
        "pageSize", sid, "a negative page size", () -> admin.stuckOrders(Duration.ZERO, null, -1));
    rejects(
        "pageSize",
        sid,
        "a page size of " + over,
        () -> admin.failedOrders(1, Duration.ZERO, null, over));
    rejects("cursor", sid, "a made-up cursor", () -> admin.unreconciledOrphans("not-a-cursor", 5));
    rejects("expiredFor", sid, "a null age", () -> admin.stuckOrders(null, null, 5));
    rejects(
        "expiredFor",
        sid,
        "a negative age",
        () -> admin.stuckOrders(Duration.ofMillis(-1), null, 5));
    rejects(
        "expiredFor",
        sid,
        "an age over MAX_AGE",
        () -> admin.stuckOrders(OrderStoreAdmin.MAX_AGE.plusMillis(1), null, 5));
    rejects(
        "minFailures", sid, "a count of 0", () -> admin.failedOrders(0, Duration.ZERO, null, 5));
    rejects("failingFor", sid, "a null age", () -> admin.failedOrders(1, null, null, 5));
    rejects(
        "failingFor",
        sid,
        "a negative age",
        () -> admin.failedOrders(1, Duration.ofDays(-1), null, 5));
    rejects("id", sid, "a null identity", () -> admin.orphan(null));
    rejects("id", sid, "a null identity", () -> admin.reconcile(null, "refunded", now()));
    rejects("note", sid, "a null note", () -> admin.reconcile(id, null, now()));
    rejects("note", sid, "a blank note", () -> admin.reconcile(id, "  ", now()));
    rejects(
        "note",
        sid,
        "a note over " + OrderStoreAdmin.MAX_NOTE_LENGTH + " chars",
        () -> admin.reconcile(id, "n".repeat(OrderStoreAdmin.MAX_NOTE_LENGTH + 1), now()));
    rejects("note", sid, "a note with a line break", () -> admin.reconcile(id, "a\nb", now()));
    rejects("reconciledAt", sid, "a null instant", () -> admin.reconcile(id, "refunded", null));
    assertEquals(
        Optional.of(OrphanRecord.unreconciled(two.get(0))),
        admin.orphan(id),
        "no rejected call may have marked the orphan");
  }
}
