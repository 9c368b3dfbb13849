package org.fencekit.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.fencekit.store.ClaimId;
import org.fencekit.store.Item;
import org.fencekit.store.OrderStoreAdmin;
import org.fencekit.store.Orphan;
import org.fencekit.store.OrphanId;
import org.fencekit.store.OrphanRecord;
import org.fencekit.store.ReconcileResult;
import org.fencekit.store.UnknownOrphanException;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Reconciling orphans: one note recorded however many callers mark at once, the same mark again
 * idempotent, another note answered with the recorded one, a mark never deleting, and each orphan
 * found by its own identity. Part of {@link OrderStoreTck}, over {@link AdminRules}.
 */
public abstract class AdminReconcileRules extends AdminRules {

  /** For the nested class of {@link OrderStoreTck} that runs this group. */
  AdminReconcileRules() {}

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
              String.format(
                  "caller %s (%s) was answered %s but the store holds %s",
                  caller, note, result, recorded));
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
   * {@link OrderStoreTck#stressThreads()} threads mark each of {@link
   * OrderStoreTck#markRaceRounds()} (48) orphans together, released at once before each one ({@link
   * Race#rounds}), each thread with a note and an instant of its own: on every orphan exactly one
   * caller is Reconciled, every caller is answered the note and instant recorded, and they come
   * from one caller. A check-then-act whose window is a few instructions wide loses some of these
   * races.
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
    int threads = suite.stressThreads();
    int races = suite.markRaceRounds();
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
                String.format(
                    "race %s of %s: caller %s (note %s) was answered %s but the store holds %s;"
                        + " did two callers both find the orphan unmarked and each write its note?",
                    race, races, caller, caller, answer, recorded));
        assertEquals(
            caller == winner,
            answer instanceof ReconcileResult.Reconciled,
            () ->
                String.format(
                    "race %s: only the caller whose note is recorded (caller %s) is Reconciled,"
                        + " the others AlreadyReconciled; caller %s was answered %s",
                    race, winner, caller, answer));
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
    orphansAre(
        List.of(orphan),
        sid,
        orphan.claimId(),
        "orphans(sessionId) keeps a reconciled orphan as it was");
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
      completeSuperseded(sid, stale, item(i), "stale complete " + i);
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
    orphansAre(three, sid, stale, "orphans(sessionId) lists all three, as recorded");
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
    completeSuperseded(x, first, a, "stale complete a");
    completeSuperseded(x, first, b, "stale complete b");
    completeSuperseded(x, second, a, "stale complete a by the second token");
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
    completeSuperseded(sid, forged, item, "a complete with the largest fence");
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
}
