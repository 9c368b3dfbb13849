package org.fencekit.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import org.fencekit.store.ClaimId;
import org.fencekit.store.Item;
import org.fencekit.store.OrderStoreAdmin;
import org.fencekit.store.Orphan;
import org.fencekit.store.OrphanId;
import org.fencekit.store.OrphanRecord;
import org.fencekit.store.Page;
import org.junit.jupiter.api.Assumptions;

/**
 * The fixture of the operator's rules, for a store that implements {@link OrderStoreAdmin}
 * (skipped, saying so, for one that does not): each rule's own era of the clock, orphans and failed
 * orders made, and the unreconciled orphans read page by page. Its groups, siblings over it: {@link
 * AdminOrphanListingRules}, {@link AdminReconcileRules}, {@link AdminOrderListingRules} and {@link
 * AdminInputRules}. Their ids start with {@code admin_}.
 *
 * <p>The listings span every order of the store, other tests' included. Each rule therefore moves
 * the clock to an era of its own, years before {@link TestClock#START} and older than every earlier
 * rule's, so its orphans and orders come first and others' leases and failures are in its future;
 * it judges only its own items and checks that no item at all is listed twice.
 */
public abstract class AdminRules extends TckFixture {

  /** Only the admin rule groups extend it. */
  AdminRules() {}

  /** How many items a listing may show before a rule gives up on it ending. */
  static final int MAX_LISTED = 20_000;

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
  void ownEra() {
    admin();
    clock.set(TestClock.START.minus(Duration.ofDays(3650 + SEQUENCE.incrementAndGet())));
  }

  /**
   * Orphans {@code items} on a new order: a claim whose lease runs out, a newer claim, then a stale
   * complete per item, all at one instant. The clock ends {@link #LEASE} later than it started.
   */
  List<Orphan> orphansOf(String sid, Item... items) {
    ClaimId stale = claimed(sid);
    clock.advance(LEASE);
    claimed(sid);
    List<Orphan> made = new ArrayList<>();
    for (Item item : items) {
      completeSuperseded(sid, stale, item, "the stale complete");
      made.add(new Orphan(sid, stale, item, now()));
    }
    return made;
  }

  static Item item(int n) {
    return new Item("prov-orphan-" + n, "payload " + n);
  }

  static Set<OrphanId> ids(List<Orphan> orphans) {
    return orphans.stream().map(OrphanId::of).collect(Collectors.toCollection(LinkedHashSet::new));
  }

  /**
   * Reads the unreconciled orphans page by page until every orphan of {@code mine} was seen and one
   * more page was read (or the listing ended), and returns those of {@code mine} in the order
   * listed. Fails if any item is listed twice, is reconciled, or a page is over {@code pageSize}.
   * {@code afterFirstPage} runs once, between the first page and the second, and may add to {@code
   * mine}.
   */
  List<OrphanRecord> readMine(
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
              String.format(
                  "the listing of unreconciled orphans repeated the %s (page size %s, after cursor"
                      + " %s); mine in the order listed so far: %s",
                  orphan.id(), pageSize, cursor, listed));
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
  static void listedOnce(Set<OrphanId> expected, List<OrphanRecord> listed, String situation) {
    List<OrphanId> ids = listed.stream().map(OrphanRecord::id).toList();
    Set<OrphanId> missing = new LinkedHashSet<>(expected);
    ids.forEach(missing::remove);
    assertEquals(
        Set.of(),
        missing,
        () ->
            String.format(
                "%s: the listing skipped these orphans; listed (mine, in order): %s, expected each"
                    + " of %s",
                situation, ids, expected));
    assertEquals(
        expected.size(),
        ids.size(),
        () ->
            String.format(
                "%s: the listing listed %s, expected exactly %s each once",
                situation, ids, expected));
    for (int i = 1; i < listed.size(); i++) {
      Instant before = listed.get(i - 1).orphan().recordedAt();
      Instant after = listed.get(i).orphan().recordedAt();
      int at = i;
      assertFalse(
          after.isBefore(before),
          () ->
              String.format(
                  "%s: orphans must be listed oldest first, but %s recorded at %s comes after %s"
                      + " recorded at %s",
                  situation, listed.get(at).id(), after, listed.get(at - 1).id(), before));
    }
  }

  void failTimes(String sid, int times) {
    for (int i = 0; i < times; i++) {
      ClaimId claimId = claimed(sid);
      failWritten(sid, claimId, "declined " + i, "fail " + i);
      failWritten(sid, claimId, "declined " + i, "the replay of fail " + i);
      clock.advance(Duration.ofSeconds(1));
    }
  }
}
