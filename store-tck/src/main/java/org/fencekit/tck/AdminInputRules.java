package org.fencekit.tck;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.fencekit.store.OrderStoreAdmin;
import org.fencekit.store.Orphan;
import org.fencekit.store.OrphanId;
import org.fencekit.store.OrphanRecord;
import org.fencekit.store.Page;
import org.fencekit.store.ReconcileResult;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * What the admin calls refuse: a cursor of another listing, and every bad argument, named before
 * the backend is asked. Part of {@link OrderStoreTck}, over {@link AdminRules}.
 */
public abstract class AdminInputRules extends AdminRules {

  /** For the nested class of {@link OrderStoreTck} that runs this group. */
  AdminInputRules() {}

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

  /**
   * Every bounded argument of the admin calls at exactly its limit is accepted, one more refused
   * naming it: a note of 1,024 chars (ending in a non-ASCII letter) is recorded whole and one of
   * 1,025 marks nothing; page sizes 1 and 1,000 are taken by every listing, 0 and 1,001 refused; a
   * count of 1 taken, 0 refused; ages of zero and of exactly {@code MAX_AGE} taken, 1 ns below zero
   * and 1 ms or 1 ns over {@code MAX_AGE} refused.
   *
   * <p>If this fails, check the store's own bounds against OrderStoreAdmin's constants: "at most N"
   * means N is accepted (a {@code >=} where {@code >} is meant refuses the limit; a note column of
   * N - 1 chars, or of N bytes, cannot hold it), and N + 1 is refused before the backend is asked.
   */
  @Test
  @DisplayName(
      "every bounded admin argument accepts exactly its limit and refuses one more, naming it")
  void admin_exactLimits() {
    ownEra();
    String sid = sid("admin-limits");
    List<Orphan> two = orphansOf(sid, item(1), item(2));
    OrphanId id = OrphanId.of(two.get(0));
    OrderStoreAdmin admin = admin();
    int max = OrderStoreAdmin.MAX_NOTE_LENGTH;
    String note = "refunded " + "é".repeat(max - "refunded ".length());
    rejects(
        "note",
        sid,
        "a note of " + (max + 1) + " chars",
        () -> admin.reconcile(id, note + "x", now()));
    assertEquals(
        Optional.of(OrphanRecord.unreconciled(two.get(0))),
        admin.orphan(id),
        "a refused note must mark nothing");
    OrphanRecord marked = new OrphanRecord(two.get(0), note, now());
    assertEquals(
        new ReconcileResult.Reconciled(marked),
        assertDoesNotThrow(
            () -> admin.reconcile(id, note, now()),
            "a note of exactly " + max + " chars must be accepted"),
        "a note of exactly " + max + " chars must be recorded whole");
    assertEquals(Optional.of(marked), admin.orphan(id), "the " + max + "-char note as stored");
    Duration maxAge = OrderStoreAdmin.MAX_AGE;
    int maxPage = OrderStoreAdmin.MAX_PAGE_SIZE;
    for (int size : new int[] {1, maxPage}) {
      assertNotNull(admin.unreconciledOrphans(null, size), "orphans, page size " + size);
      assertNotNull(admin.stuckOrders(Duration.ZERO, null, size), "stuck, page size " + size);
      assertNotNull(admin.stuckOrders(maxAge, null, size), "stuck for MAX_AGE, size " + size);
      assertNotNull(admin.failedOrders(1, Duration.ZERO, null, size), "failed, size " + size);
      assertNotNull(admin.failedOrders(1, maxAge, null, size), "failed for MAX_AGE, " + size);
    }
    for (int size : new int[] {0, maxPage + 1}) {
      String what = "a page size of " + size;
      rejects("pageSize", sid, what, () -> admin.unreconciledOrphans(null, size));
      rejects("pageSize", sid, what, () -> admin.stuckOrders(Duration.ZERO, null, size));
      rejects("pageSize", sid, what, () -> admin.failedOrders(1, Duration.ZERO, null, size));
    }
    rejects("minFailures", sid, "a count of 0", () -> admin.failedOrders(0, maxAge, null, 5));
    for (Duration age : List.of(Duration.ofNanos(-1), maxAge.plusMillis(1), maxAge.plusNanos(1))) {
      String what = "an age of " + age;
      rejects("expiredFor", sid, what, () -> admin.stuckOrders(age, null, 5));
      rejects("failingFor", sid, what, () -> admin.failedOrders(1, age, null, 5));
    }
  }
}
