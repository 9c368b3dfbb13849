package org.fencekit.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.fencekit.store.ClaimId;
import org.fencekit.store.ClaimResult;
import org.fencekit.store.Mismatch;
import org.fencekit.store.MismatchId;
import org.fencekit.store.OrderSnapshot;
import org.fencekit.store.OrderStoreAdmin;
import org.fencekit.store.Page;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The listing of mismatched claims across orders ({@link OrderStoreAdmin#mismatches}): one row per
 * claim that answered {@link ClaimResult.Mismatch}, none for any other claim, with the stored and
 * offered order and the instant, oldest first (then by session id and nonce), paged without
 * skipping or repeating at any page size, ties included. Part of {@link OrderStoreTck}, over {@link
 * AdminRules}.
 */
public abstract class AdminMismatchRules extends AdminRules {

  /** For the nested class of {@link OrderStoreTck} that runs this group. */
  AdminMismatchRules() {}

  /** The sort key of the listing: recordedAt, then session id, then nonce. */
  static final Comparator<Mismatch> LISTING_ORDER =
      Comparator.comparing(Mismatch::recordedAt)
          .thenComparing(Mismatch::sessionId)
          .thenComparing(m -> m.id().nonce());

  /** A row as the rule expects it: everything but the nonce, which the store draws. */
  record Expected(
      String sessionId, Instant recordedAt, OrderSnapshot stored, OrderSnapshot offered) {
    static Expected of(Mismatch row) {
      return new Expected(row.sessionId(), row.recordedAt(), row.stored(), row.offered());
    }
  }

  private static OrderSnapshot withoutEmail(OrderSnapshot s) {
    return new OrderSnapshot(
        s.sessionId(), s.productId(), s.quantity(), null, s.amountTotal(), s.currency());
  }

  /** Offers {@code offered} under its session id, asserts a Mismatch, returns the row expected. */
  Expected mismatch(OrderSnapshot offered) {
    String sid = offered.sessionId();
    ClaimResult result = store().claim(offered, LEASE);
    assertInstanceOf(
        ClaimResult.Mismatch.class,
        result,
        says("a claim of another order under the key", sid, null));
    return new Expected(
        sid, now(), withoutEmail(result.record().snapshot()), withoutEmail(offered));
  }

  /**
   * Reads the mismatches page by page until {@code count} rows of {@code mine} (session ids) were
   * seen and one more page was read, or the listing ended; returns those of {@code mine} in the
   * order listed. Fails if any row is listed twice, the listing is out of order, or a page is over
   * {@code pageSize}.
   */
  List<Mismatch> readMine(Set<String> mine, int count, int pageSize) {
    List<Mismatch> listed = new ArrayList<>();
    Set<MismatchId> seen = new HashSet<>();
    Mismatch previous = null;
    String cursor = null;
    boolean onePageMore = false;
    while (true) {
      Page<Mismatch> page = admin().mismatches(cursor, pageSize);
      assertNotNull(page, "mismatches must never return null");
      assertTrue(
          page.items().size() <= pageSize,
          () -> "a page of size " + pageSize + " listed " + page.items().size() + " mismatches");
      for (Mismatch row : page.items()) {
        if (!seen.add(row.id())) {
          fail(
              String.format(
                  "the listing of mismatches repeated the %s (page size %s, after cursor %s);"
                      + " mine listed so far: %s",
                  row.id(), pageSize, cursor, listed));
        }
        Mismatch before = previous;
        if (before != null && LISTING_ORDER.compare(before, row) >= 0) {
          fail(
              String.format(
                  "mismatches must be listed by recordedAt, then session id, then nonce, but %s"
                      + " (recorded at %s) came after %s (recorded at %s), page size %s",
                  row.id(), row.recordedAt(), before.id(), before.recordedAt(), pageSize));
        }
        previous = row;
        if (mine.contains(row.sessionId())) {
          listed.add(row);
        }
      }
      if (seen.size() > MAX_LISTED) {
        fail("the listing did not end after " + MAX_LISTED + " mismatches; mine: " + listed);
      }
      if (!page.hasNext()) {
        return listed;
      }
      if (listed.size() >= count) {
        if (onePageMore) {
          return listed;
        }
        onePageMore = true;
      }
      cursor = page.nextCursor();
    }
  }

  /**
   * Seven mismatched claims over three orders (held, provisioned, failed), three of them at one
   * instant (two on one order, one on another), one order mismatched twice in the same fields, and
   * claims of the same order (another e-mail, the currency's case, the order's own snapshot) in
   * between: the listing holds exactly one row per mismatched claim, none for the others, with the
   * stored and offered order (no e-mail) and the instant, oldest first, in the same order at every
   * page size.
   *
   * <p>If this fails, check that the mismatch row is written in the same atomic step as the claim's
   * answer (the same transaction, the same script), that every mismatched claim adds a row of its
   * own (its nonce in the key, no upsert by order), that no other claim adds one, and that the
   * cursor is the whole sort key (recordedAt, session id, nonce).
   */
  @Test
  @DisplayName(
      "every mismatched claim is listed once, with both orders, oldest first, at every page size")
  void admin_mismatchesListedOncePerClaim() {
    ownEra();
    String a = sid("mm-list-a");
    String b = sid("mm-list-b");
    String c = sid("mm-list-c");
    claimed(a);
    completeWritten(b, claimed(b), ESIM, "the complete");
    ClaimId failing = claimed(c);
    failWritten(c, failing, "declined", "the fail");
    List<Expected> expected = new ArrayList<>();
    OrderSnapshot otherCartA = new OrderSnapshot(a, "esim-us-10gb", 1, null, 4500, "usd");
    expected.add(mismatch(otherCartA));
    expected.add(mismatch(otherCartA));
    expected.add(mismatch(new OrderSnapshot(b, "esim-eu-5gb", 4, "x@example.com", 1999, "usd")));
    assertInstanceOf(
        ClaimResult.InFlight.class,
        store()
            .claim(new OrderSnapshot(a, "esim-eu-5gb", 1, "new@example.com", 1999, "USD"), LEASE),
        says("a claim of the same order (e-mail, currency case) while held", a, null));
    clock.advance(Duration.ofMillis(5));
    expected.add(mismatch(new OrderSnapshot(c, "esim-jp-1gb", 9, null, 1, "jpy")));
    assertInstanceOf(
        ClaimResult.Provisioned.class,
        store().claim(snapshot(b), LEASE),
        says("a claim of the provisioned order's own snapshot", b, null));
    clock.advance(Duration.ofSeconds(2));
    expected.add(mismatch(new OrderSnapshot(a, "esim-eu-5gb", 1, null, 1999, "gbp")));
    expected.add(mismatch(new OrderSnapshot(c, "esim-eu-5gb", 1, null, 2000, "usd")));
    clock.advance(LEASE);
    expected.add(mismatch(otherCartA));
    Set<String> mine = Set.of(a, b, c);
    List<Expected> sortedExpected = new ArrayList<>(expected);
    sortedExpected.sort(
        Comparator.comparing(Expected::recordedAt).thenComparing(Expected::sessionId));
    List<MismatchId> firstOrder = null;
    for (int pageSize : new int[] {1, 2, 3, 7, OrderStoreAdmin.MAX_PAGE_SIZE}) {
      List<Mismatch> listed = readMine(mine, expected.size(), pageSize);
      List<Expected> found = listed.stream().map(Expected::of).toList();
      List<Expected> foundSorted = new ArrayList<>(found);
      foundSorted.sort(
          Comparator.comparing(Expected::recordedAt).thenComparing(Expected::sessionId));
      int size = pageSize;
      assertEquals(
          sortedExpected,
          foundSorted,
          () ->
              "with page size "
                  + size
                  + " the listing must hold exactly one row per mismatched claim (and none for a"
                  + " claim of the same order); listed: "
                  + listed);
      List<MismatchId> order = listed.stream().map(Mismatch::id).toList();
      if (firstOrder == null) {
        firstOrder = order;
      }
      assertEquals(
          firstOrder,
          order,
          "with page size " + pageSize + " the mismatches came in another order than with size 1");
    }
  }

  /**
   * The listing refuses a page size of 0 or over the largest and a cursor that is not one of its
   * own (made up, or the orphan listing's), naming the argument; it takes its own cursor, and the
   * orphan listing refuses the mismatch listing's.
   *
   * <p>If this fails, check that the mismatch listing validates its arguments before the backend is
   * asked and that its cursor names the listing that wrote it.
   */
  @Test
  @DisplayName("the mismatch listing refuses bad page sizes and other listings' cursors")
  void admin_mismatchListingArguments() {
    ownEra();
    String sid = sid("mm-args");
    claimed(sid);
    OrderSnapshot other = new OrderSnapshot(sid, "esim-us-10gb", 1, null, 4500, "usd");
    mismatch(other);
    mismatch(other);
    orphansOf(sid("mm-args-orphans"), item(1), item(2));
    OrderStoreAdmin admin = admin();
    int over = OrderStoreAdmin.MAX_PAGE_SIZE + 1;
    rejects("pageSize", sid, "a page size of 0", () -> admin.mismatches(null, 0));
    rejects("pageSize", sid, "a page size of " + over, () -> admin.mismatches(null, over));
    rejects("cursor", sid, "a made-up cursor", () -> admin.mismatches("not-a-cursor", 5));
    String own = admin.mismatches(null, 1).nextCursor();
    assertNotNull(own, "a listing of at least two mismatches has a next page at size 1");
    assertNotNull(admin.mismatches(own, 1), "the mismatch listing must take its own cursor");
    assertNotNull(admin.mismatches(null, OrderStoreAdmin.MAX_PAGE_SIZE), "the largest page");
    String orphans = admin.unreconciledOrphans(null, 1).nextCursor();
    assertNotNull(orphans, "two orphans make a next page at size 1");
    var refused =
        assertThrows(
            IllegalArgumentException.class,
            () -> admin.mismatches(orphans, 1),
            "an orphan listing's cursor passed to mismatches must be refused");
    assertTrue(String.valueOf(refused.getMessage()).contains("cursor"), refused::getMessage);
    var refusedBack =
        assertThrows(
            IllegalArgumentException.class,
            () -> admin.unreconciledOrphans(own, 1),
            "a mismatch listing's cursor passed to unreconciledOrphans must be refused");
    assertTrue(
        String.valueOf(refusedBack.getMessage()).contains("cursor"), refusedBack::getMessage);
  }
}
