package org.fencekit.history;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.fencekit.store.ClaimId;
import org.fencekit.store.ClaimResult;
import org.fencekit.store.Item;
import org.fencekit.store.OrderRecord;
import org.fencekit.store.OrderSnapshot;
import org.fencekit.store.OrderStatus;
import org.fencekit.store.Orphan;
import org.fencekit.store.WriteResult;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The history checks (a) to (g) on histories built by hand, each break caught by its letter without
 * a store or a load (the fault harness's self-test proves them under load on broken stores).
 */
class HistoryCheckTest {

  private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");
  private static final String SID = "cs_check";
  private static final OrderSnapshot SNAPSHOT = new OrderSnapshot(SID, "esim", 1, null, 100, "eur");
  private static final ClaimId OWNER = new ClaimId(1, ClaimId.newNonce());
  private static final ClaimId STALE = new ClaimId(1, ClaimId.newNonce());
  private static final OrderRecord HELD = held(OWNER);

  private final List<Call> calls = new ArrayList<>();
  private long sequence;

  private Call record(Request request, Object result) {
    long invoked = ++sequence;
    long responded = ++sequence;
    Call call = new Call(invoked, responded, invoked, responded, "t", request, NOW, result, null);
    calls.add(call);
    return call;
  }

  private static OrderRecord held(ClaimId claimId) {
    return new OrderRecord(
        SNAPSHOT, OrderStatus.PENDING, null, null, claimId, NOW, NOW.plusSeconds(30), 1, null, NOW);
  }

  private static OrderRecord provisioned(String providerOrderId) {
    return new OrderRecord(
        SNAPSHOT,
        OrderStatus.PROVISIONED,
        new Item(providerOrderId, null),
        null,
        null,
        null,
        null,
        1,
        OWNER,
        NOW);
  }

  /** The owner claims and completes with {@code po-1}. */
  private void claimAndComplete() {
    record(Request.claim(SNAPSHOT, Duration.ofSeconds(30)), new ClaimResult.Claimed(OWNER, HELD));
    record(
        Request.complete(SID, OWNER, new Item("po-1", null)),
        new WriteResult.Written(provisioned("po-1")));
  }

  /** Checks the calls so far, the order read at the end as {@code last}, with no fault. */
  private HistoryCheck.Result check(OrderRecord last, List<Orphan> orphans) {
    List<Call> load = List.copyOf(calls);
    Call finalGet = record(Request.get(SID), Optional.ofNullable(last));
    return HistoryCheck.check(load, Map.of(SID, finalGet), Map.of(SID, orphans));
  }

  @Test
  @DisplayName("a claim and its complete, then the order as written, is no violation")
  void cleanHistory() {
    claimAndComplete();
    HistoryCheck.Result result = check(provisioned("po-1"), List.of());
    assertEquals(0, result.total(), result.kept().toString());
  }

  @Test
  @DisplayName("(a) a Written complete the order does not show is a lost write")
  void lostWrite() {
    claimAndComplete();
    HistoryCheck.Result result = check(HELD, List.of());
    assertTrue(result.count('a') > 0, result.kept().toString());
  }

  @Test
  @DisplayName("(b) a complete answered Superseded whose item the order shows has landed")
  void supersededLanded() {
    record(Request.claim(SNAPSHOT, Duration.ofSeconds(30)), new ClaimResult.Claimed(OWNER, HELD));
    Call stale =
        record(
            Request.complete(SID, STALE, new Item("po-2", null)), new WriteResult.Superseded(HELD));
    Orphan orphan = new Orphan(SID, STALE, new Item("po-2", null), NOW);
    assertTrue(stale.left(orphan), "a superseded complete left the orphan of its claim and item");
    HistoryCheck.Result result = check(provisioned("po-2"), List.of(orphan));
    assertTrue(result.count('b') > 0, result.kept().toString());
    assertEquals(0, result.count('e'), result.kept().toString());
  }

  @Test
  @DisplayName("(d) two claims granted one fence, and (e) a superseded complete not in orphans")
  void fenceTwiceAndOrphanMissing() {
    claimAndComplete();
    record(
        Request.claim(SNAPSHOT, Duration.ofSeconds(30)),
        new ClaimResult.Claimed(STALE, held(STALE)));
    record(
        Request.complete(SID, STALE, new Item("po-3", null)),
        new WriteResult.Superseded(provisioned("po-1")));
    HistoryCheck.Result result = check(provisioned("po-1"), List.of());
    assertTrue(result.count('d') > 0, result.kept().toString());
    assertTrue(result.count('e') > 0, result.kept().toString());
  }

  /**
   * A record at fence 2: {@code claimId} holds it, {@code settledBy} and {@code lastError} kept.
   */
  private static OrderRecord atFenceTwo(ClaimId claimId, ClaimId settledBy, String lastError) {
    return new OrderRecord(
        SNAPSHOT,
        OrderStatus.PENDING,
        null,
        lastError,
        claimId,
        NOW,
        NOW.plusSeconds(30),
        2,
        settledBy,
        NOW);
  }

  /** The owner claims and fails with {@code error}; then {@code next} claims fence 2. */
  private void failThenClaimAgain(String error, ClaimId next) {
    record(Request.claim(SNAPSHOT, Duration.ofSeconds(30)), new ClaimResult.Claimed(OWNER, HELD));
    record(
        Request.fail(SID, OWNER, error),
        new WriteResult.Written(
            new OrderRecord(
                SNAPSHOT, OrderStatus.FAILED, null, error, null, null, null, 1, OWNER, NOW)));
    record(
        Request.claim(SNAPSHOT, Duration.ofSeconds(30)),
        new ClaimResult.Claimed(next, atFenceTwo(next, OWNER, error)));
  }

  @Test
  @DisplayName("(b) a fail replayed after the order was claimed again is Superseded, not a landing")
  void replayedSettleSupersededLater() {
    ClaimId next = new ClaimId(2, ClaimId.newNonce());
    failThenClaimAgain("declined", next);
    record(
        Request.fail(SID, OWNER, "declined"),
        new WriteResult.Superseded(atFenceTwo(next, OWNER, "declined")));
    HistoryCheck.Result result = check(atFenceTwo(next, OWNER, "declined"), List.of());
    assertEquals(0, result.total(), result.kept().toString());
  }

  @Test
  @DisplayName("(d) a Claimed answer whose record holds another claim at the same fence")
  void claimedRecordHoldsAnotherClaim() {
    record(
        Request.claim(SNAPSHOT, Duration.ofSeconds(30)),
        new ClaimResult.Claimed(OWNER, held(STALE)));
    HistoryCheck.Result result = check(HELD, List.of());
    assertTrue(result.count('d') > 0, result.kept().toString());
  }

  @Test
  @DisplayName("(e) an orphan whose item is not what the superseded complete sent")
  void orphanWithAnotherItem() {
    record(Request.claim(SNAPSHOT, Duration.ofSeconds(30)), new ClaimResult.Claimed(OWNER, HELD));
    record(
        Request.complete(SID, STALE, new Item("po-2", "code-2")), new WriteResult.Superseded(HELD));
    Orphan changed = new Orphan(SID, STALE, new Item("po-2", "another code"), NOW);
    HistoryCheck.Result result = check(HELD, List.of(changed));
    assertEquals(1, result.count('e'), result.kept().toString());
    assertEquals(1, result.total(), result.kept().toString());
  }

  @Test
  @DisplayName("(e) an order no call touched but the final reads has an orphan no call sent")
  void orphanOfAnUntouchedOrder() {
    HistoryCheck.Result result =
        check(null, List.of(new Orphan(SID, STALE, new Item("po-9", null), NOW)));
    assertEquals(1, result.count('e'), result.kept().toString());
    assertEquals(1, result.total(), result.kept().toString());
  }

  @Test
  @DisplayName("(b) an order FAILED by its claim without an error no fail sent")
  void failedWithoutError() {
    record(Request.claim(SNAPSHOT, Duration.ofSeconds(30)), new ClaimResult.Claimed(OWNER, HELD));
    OrderRecord failed =
        new OrderRecord(SNAPSHOT, OrderStatus.FAILED, null, null, null, null, null, 1, OWNER, NOW);
    HistoryCheck.Result result = check(failed, List.of());
    assertEquals(1, result.count('b'), result.kept().toString());
    assertEquals(1, result.total(), result.kept().toString());
  }

  @Test
  @DisplayName("every check says what it expects, for a failure message")
  void everyCheckSaysWhatItExpects() {
    for (char check = 'a'; check <= 'g'; check++) {
      assertTrue(new Violation(check, "found").expected().length() > 20, "check " + check);
    }
  }

  @Test
  @DisplayName("(g) an exception the contract does not document is a violation")
  void undocumentedException() {
    claimAndComplete();
    calls.add(
        new Call(
            ++sequence,
            ++sequence,
            0,
            0,
            "t",
            Request.get(SID),
            NOW,
            null,
            new IllegalStateException("a driver bug")));
    HistoryCheck.Result result = check(provisioned("po-1"), List.of());
    assertEquals(1, result.count('g'), result.kept().toString());
    assertEquals(1, result.total(), result.kept().toString());
  }

  @Test
  @DisplayName("what a store said stands in a violation as it was said, never read as a format")
  void storeTextIsNeverAFormat() {
    String said = "a driver bug at 100% %s %n %d";
    calls.add(
        new Call(
            ++sequence,
            ++sequence,
            0,
            0,
            "t",
            Request.get(SID),
            NOW,
            null,
            new IllegalStateException(said)));
    HistoryCheck.Result result = check(null, List.of());
    assertEquals(1, result.count('g'), result.kept().toString());
    assertTrue(result.kept().toString().contains(said), result.kept().toString());
  }

  @Test
  @DisplayName("a claim answered Mismatch counts as nothing written: no claim, no lost write")
  void mismatchWritesNothing() {
    claimAndComplete();
    Call mismatched =
        record(
            Request.claim(
                new OrderSnapshot(SID, "esim-us", 2, null, 100, "eur"), Duration.ofSeconds(30)),
            new ClaimResult.Mismatch(
                provisioned("po-1"),
                java.util.EnumSet.of(
                    org.fencekit.store.OrderField.PRODUCT_ID,
                    org.fencekit.store.OrderField.QUANTITY,
                    org.fencekit.store.OrderField.CURRENCY)));
    assertEquals(Answer.MISMATCH, mismatched.answer());
    assertTrue(mismatched.answer().succeeded());
    HistoryCheck.Result result = check(provisioned("po-1"), List.of());
    assertEquals(0, result.total(), result.kept().toString());
  }
}
