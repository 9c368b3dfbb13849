package org.fencekit.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.fencekit.store.ClaimId;
import org.fencekit.store.Item;
import org.fencekit.store.OrderStoreAdmin;
import org.fencekit.store.Orphan;
import org.fencekit.store.OrphanId;
import org.fencekit.store.OrphanRecord;
import org.fencekit.store.ReconcileResult;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The listing of unreconciled orphans across orders: oldest first, then by identity (session id,
 * token, provider order id), paged without skipping or repeating at any page size, ties, made-up
 * tokens and fences above 2^53 included, while orphans are recorded or reconciled between pages.
 * Part of {@link OrderStoreTck}, over {@link AdminRules}.
 */
public abstract class AdminOrphanListingRules extends AdminRules {

  /** For the nested class of {@link OrderStoreTck} that runs this group. */
  AdminOrphanListingRules() {}

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
    completeSuperseded(sid, stale, item, "a stale complete");
    return new Orphan(sid, stale, item, now());
  }

  /** Records the orphan of a stale complete by {@code stale}, {@code minutes} after {@code t}. */
  private Orphan orphanAt(Instant t, int minutes, String sid, ClaimId stale, String providerId) {
    clock.set(t.plus(Duration.ofMinutes(minutes)));
    return orphanOf(sid, stale, providerId);
  }

  /** An orphan's sort key, for messages: recordedAt, session id, token, provider order id. */
  private static String key(Orphan orphan) {
    String id = orphan.item().providerOrderId();
    return String.format(
        "%s %s %s %s", orphan.recordedAt(), orphan.sessionId(), orphan.claimId(), id);
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
              String.format(
                  "%s, with page size %s: the orphans must be listed each once by (recordedAt,"
                      + " session id, the token's fence, its nonce, provider order id); expected %s"
                      + " but listed %s",
                  situation,
                  pageSize,
                  expected.stream().map(AdminOrphanListingRules::key).toList(),
                  listed.stream().map(o -> key(o.orphan())).toList()));
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
}
