package org.fencekit.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
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

  /**
   * An orphan reconciled with an instant three days before the store's clock (with nanoseconds)
   * records that instant, truncated to milliseconds, and so does one reconciled with an instant a
   * year after it: the mark stamps the time the operator gives, not the store's clock.
   *
   * <p>If this fails, check that reconcile writes the reconciledAt it is given (truncated to
   * milliseconds) and never reads the store's clock or the server's time for the mark.
   */
  @Test
  @DisplayName("reconcile stamps the instant it is given, not the store's clock")
  void admin_reconcileStampsGivenInstant() {
    ownEra();
    String sid = sid("stamp");
    List<Orphan> two = orphansOf(sid, item(1), item(2));
    clock.advance(Duration.ofSeconds(5));
    Instant past = now().minus(Duration.ofDays(3)).plusNanos(1_234_567);
    Instant future = now().plus(Duration.ofDays(365)).plusNanos(999_999);
    List<Instant> given = List.of(past, future);
    for (int i = 0; i < 2; i++) {
      OrphanId id = OrphanId.of(two.get(i));
      Instant at = given.get(i);
      OrphanRecord expected =
          new OrphanRecord(two.get(i), "refunded", at.truncatedTo(ChronoUnit.MILLIS));
      String what =
          String.format(
              "the mark of %s given reconciledAt %s at the store's clock %s", id, at, now());
      assertEquals(
          new ReconcileResult.Reconciled(expected), admin().reconcile(id, "refunded", at), what);
      assertEquals(Optional.of(expected), admin().orphan(id), what + ", as stored");
    }
  }

  /**
   * Of four orphans that share parts of their identity with one another (two items of one token on
   * an order, an item of another token on that order, and the same token and provider order id on
   * another order), reconciling one marks exactly that one: the other three stay unreconciled, in
   * their lookups and in the listing.
   *
   * <p>If this fails, check that the mark's UPDATE or script selects the orphan by its whole
   * identity (session id, the token's fence and nonce, and the provider order id), not by the token
   * or the order alone.
   */
  @Test
  @DisplayName("reconcile marks exactly the orphan it names, not others of the same token or order")
  void admin_reconcileMarksOnlyNamed() {
    ownEra();
    String a = sid("named-a");
    String b = sid("named-b");
    ClaimId token = claimed(a);
    clock.advance(LEASE);
    ClaimId other = claimed(a);
    clock.advance(LEASE);
    claimed(a);
    claimed(b);
    completeSuperseded(a, token, item(1), "the stale complete of item 1");
    completeSuperseded(a, token, item(2), "the stale complete of item 2");
    completeSuperseded(a, other, item(1), "the other token's stale complete");
    completeSuperseded(b, token, item(1), "the complete with order " + a + "'s token");
    Orphan named = new Orphan(a, token, item(1), now());
    List<Orphan> others =
        List.of(
            new Orphan(a, token, item(2), now()),
            new Orphan(a, other, item(1), now()),
            new Orphan(b, token, item(1), now()));
    OrphanId id = OrphanId.of(named);
    assertInstanceOf(
        ReconcileResult.Reconciled.class,
        admin().reconcile(id, "refunded", now()),
        "reconciling " + id);
    for (Orphan orphan : others) {
      assertEquals(
          Optional.of(OrphanRecord.unreconciled(orphan)),
          admin().orphan(OrphanId.of(orphan)),
          "reconciling " + id + " must leave " + OrphanId.of(orphan) + " unreconciled");
    }
    listedOnce(ids(others), readMine(ids(others), 2, null), "after reconciling only " + id);
  }

  /**
   * Orphans of one order whose tokens have the same nonce and fences 1 + 2^32 and 1 + 2^31 apart
   * from fence 1, with the same provider order id, are three orphans: each found by its own lookup,
   * each listed, and reconciling one leaves the others unreconciled.
   *
   * <p>If this fails, check that the orphan's fence is stored and compared as a 64-bit integer in
   * its key, its index and the mark (an int column, a JDBC getInt or a 32-bit Lua conversion makes
   * fences 2^32 apart one orphan).
   */
  @Test
  @DisplayName(
      "orphans whose tokens' fences are 2^31 or 2^32 apart are found, listed and reconciled apart")
  void admin_orphanFencesAs64Bits() {
    ownEra();
    String sid = sid("orphan-64-bits");
    claimed(sid);
    String nonce = ClaimId.newNonce();
    List<Orphan> made = new ArrayList<>();
    for (long fence : new long[] {1, 1 + (1L << 32), 1 + (1L << 31)}) {
      ClaimId forged = new ClaimId(fence, nonce);
      Item item = new Item("prov-64", "payload " + fence);
      completeSuperseded(sid, forged, item, "a complete with " + forged);
      made.add(new Orphan(sid, forged, item, now()));
    }
    orphansAre(made, sid, null, "three orphans, one per token, fences kept exactly");
    for (Orphan orphan : made) {
      assertEquals(
          Optional.of(OrphanRecord.unreconciled(orphan)),
          admin().orphan(OrphanId.of(orphan)),
          "the lookup of " + OrphanId.of(orphan));
    }
    listedOnce(ids(made), readMine(ids(made), 1, null), "orphans 2^31 and 2^32 fences apart");
    OrphanId first = OrphanId.of(made.get(0));
    assertInstanceOf(
        ReconcileResult.Reconciled.class,
        admin().reconcile(first, "refunded", now()),
        "reconciling " + first);
    List<Orphan> rest = made.subList(1, 3);
    for (Orphan orphan : rest) {
      assertEquals(
          Optional.of(OrphanRecord.unreconciled(orphan)),
          admin().orphan(OrphanId.of(orphan)),
          "reconciling " + first + " must leave " + OrphanId.of(orphan) + " unreconciled");
    }
    listedOnce(ids(rest), readMine(ids(rest), 1, null), "after reconciling " + first);
  }
}
