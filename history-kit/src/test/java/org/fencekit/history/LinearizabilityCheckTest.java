package org.fencekit.history;

import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.fencekit.store.ClaimId;
import org.fencekit.store.ClaimResult;
import org.fencekit.store.Item;
import org.fencekit.store.OrderRecord;
import org.fencekit.store.OrderSnapshot;
import org.fencekit.store.OrderStatus;
import org.fencekit.store.StoreUnavailableException;
import org.fencekit.store.WriteResult;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The linearizability check on histories built by hand, so it is proven without any store. */
class LinearizabilityCheckTest {

  private static final Instant NOW = Instant.parse("2026-09-14T12:00:00Z");
  private static final Duration LEASE = Duration.ofSeconds(1);
  private static final String SID = "cs_checker";
  private static final OrderSnapshot SNAPSHOT = new OrderSnapshot(SID, "esim", 1, null, 100, "usd");
  private static final ClaimId FIRST = new ClaimId(1, ClaimId.newNonce());
  private static final OrderRecord CLAIMED =
      new OrderRecord(
          SNAPSHOT, OrderStatus.PENDING, null, null, FIRST, NOW, NOW.plus(LEASE), 1, null, NOW);

  private static Call call(long invoked, long responded, Request request, Object result) {
    return new Call(invoked, responded, 0, 0, "t" + invoked, request, NOW, result, null);
  }

  private static Call claim(long invoked, long responded, ClaimResult answer) {
    return call(invoked, responded, Request.claim(SNAPSHOT, LEASE), answer);
  }

  /** A complete answered Written: the order provisioned by {@code claimId} at fence 1. */
  private static Call written(long invoked, long responded, ClaimId claimId, String item) {
    Item bought = new Item(item, null);
    OrderRecord provisioned =
        new OrderRecord(
            SNAPSHOT, OrderStatus.PROVISIONED, bought, null, null, null, null, 1, claimId, NOW);
    return call(
        invoked,
        responded,
        Request.complete(SID, claimId, bought),
        new WriteResult.Written(provisioned));
  }

  @Test
  @DisplayName("overlapping calls are reordered when only another order explains their answers")
  void acceptsAReorderingOfOverlappingCalls() {
    // The InFlight answer returned before the Claimed one was made: valid only because both
    // overlap (InFlight [2..5] inside Claimed [1..6]), so the claim that was granted goes first.
    List<Call> calls =
        List.of(
            claim(1, 6, new ClaimResult.Claimed(FIRST, CLAIMED)),
            claim(2, 5, new ClaimResult.InFlight(CLAIMED)),
            written(7, 8, FIRST, "p-1"));
    LinearizabilityCheck.check(calls, true, "hand-built");
  }

  @Test
  @DisplayName("the same answers without overlap have no sequential order that explains them")
  void rejectsAnswersRealTimeForbids() {
    List<Call> calls =
        List.of(
            claim(1, 2, new ClaimResult.InFlight(CLAIMED)),
            claim(3, 4, new ClaimResult.Claimed(FIRST, CLAIMED)));
    AssertionError error =
        assertThrows(
            AssertionError.class, () -> LinearizabilityCheck.check(calls, true, "seed 42"));
    assertTrue(error.getMessage().contains("seed 42"), error::getMessage);
    assertTrue(error.getMessage().contains(SID), error::getMessage);
  }

  @Test
  @DisplayName("two completes with different claim ids for one fence cannot both be Written")
  void rejectsTwoWrittenSettlesOfOneFence() {
    ClaimId other = new ClaimId(1, ClaimId.newNonce());
    List<Call> calls =
        List.of(
            claim(1, 2, new ClaimResult.Claimed(FIRST, CLAIMED)),
            written(3, 4, FIRST, "p-1"),
            written(5, 6, other, "p-2"));
    AssertionError error =
        assertThrows(
            AssertionError.class, () -> LinearizabilityCheck.check(calls, true, "hand-built"));
    String message = error.getMessage();
    assertTrue(message.contains("invariant 5 (linearizability) violated"), message);
    assertTrue(message.contains("The longest valid sequential prefix has 2 calls"), message);
    assertTrue(message.contains("the model would answer Superseded"), message);
  }

  @Test
  @DisplayName("an exception the contract does not allow here fails the check with it as cause")
  void reportsAnExceptionAsTheCause() {
    StoreUnavailableException down =
        new StoreUnavailableException("test", "claim", SID, true, "down", null);
    List<Call> calls =
        List.of(new Call(1, 2, 0, 0, "t1", Request.claim(SNAPSHOT, LEASE), NOW, null, down));
    AssertionError error =
        assertThrows(
            AssertionError.class, () -> LinearizabilityCheck.check(calls, true, "hand-built"));
    assertSame(down, error.getCause());
    assertTrue(error.getMessage().contains("hand-built"), error::getMessage);
  }

  @Test
  @DisplayName(
      "a Mismatch for another cart is explained by the model and writes nothing; one for the same cart is not")
  void mismatchIsAnAnswerThatWritesNothing() {
    OrderSnapshot otherCart = new OrderSnapshot(SID, "esim-us", 1, null, 100, "usd");
    List<Call> calls =
        List.of(
            claim(1, 2, new ClaimResult.Claimed(FIRST, CLAIMED)),
            call(
                3,
                4,
                Request.claim(otherCart, LEASE),
                new ClaimResult.Mismatch(
                    CLAIMED, java.util.Set.of(org.fencekit.store.OrderField.PRODUCT_ID))),
            written(5, 6, FIRST, "p-1"));
    LinearizabilityCheck.check(calls, true, "hand-built");
    List<Call> wrong =
        List.of(
            claim(1, 2, new ClaimResult.Claimed(FIRST, CLAIMED)),
            claim(
                3,
                4,
                new ClaimResult.Mismatch(
                    CLAIMED, java.util.Set.of(org.fencekit.store.OrderField.PRODUCT_ID))));
    assertThrows(AssertionError.class, () -> LinearizabilityCheck.check(wrong, true, "hand-built"));
  }
}
