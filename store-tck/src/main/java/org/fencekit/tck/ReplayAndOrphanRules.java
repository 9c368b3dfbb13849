package org.fencekit.tck;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.fencekit.store.ClaimId;
import org.fencekit.store.Item;
import org.fencekit.store.OrderRecord;
import org.fencekit.store.Orphan;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Retried settles (a replay answers Written and changes nothing; anything else from the settling
 * token is superseded) and the orphans of superseded completes. Ids start with {@code replay_} and
 * {@code orphan_}. Part of {@link OrderStoreTck}.
 */
public abstract class ReplayAndOrphanRules extends TckFixture {

  /** For the nested class of {@link OrderStoreTck} that runs this group. */
  ReplayAndOrphanRules() {}

  /**
   * The attempt that completed the order retries the same complete (its first try timed out after
   * landing): Written, with the record unchanged, not even updatedAt, and no orphan.
   *
   * <p>If this fails, check the replay rule: claimId equals settledBy, same operation, equal item,
   * answered Written without writing.
   */
  @Test
  @DisplayName(
      "a retried complete with the same token and item answers Written and changes nothing, not even updatedAt")
  void replay_complete() {
    String sid = sid("complete-replay");
    ClaimId claimId = claimed(sid);
    OrderRecord done = completeWritten(sid, claimId, ESIM, "the complete");
    clock.advance(Duration.ofSeconds(5));
    OrderRecord again = completeWritten(sid, claimId, ESIM, "the retried complete");
    sameRecord(
        done, again, "the retry must answer the record as the first try left it", sid, claimId);
    unchanged(done, sid, claimId, "a retried complete");
    orphansAre(List.of(), sid, claimId, "a replay is not an orphan");
  }

  /**
   * The attempt that failed the order retries the same fail: Written, nothing changes.
   *
   * <p>If this fails, check the replay rule for fail: claimId equals settledBy, the order is still
   * FAILED, equal error.
   */
  @Test
  @DisplayName("a retried fail with the same token and error answers Written and changes nothing")
  void replay_fail() {
    String sid = sid("fail-replay");
    ClaimId claimId = claimed(sid);
    OrderRecord failed = failWritten(sid, claimId, "declined", "the fail");
    clock.advance(Duration.ofSeconds(5));
    OrderRecord again = failWritten(sid, claimId, "declined", "the retried fail");
    sameRecord(
        failed, again, "the retry must answer the record as the first try left it", sid, claimId);
    unchanged(failed, sid, claimId, "a retried fail");
  }

  /**
   * The settling token completes again with another item: not a replay, so Superseded, the order
   * keeps its item, and the other item is orphaned (a second purchase was made).
   *
   * <p>If this fails, check that a replay requires an equal item (providerOrderId and payload).
   */
  @Test
  @DisplayName(
      "a retried complete with the same token but another item is superseded, and that item orphaned")
  void replay_completeOtherItemSuperseded() {
    String sid = sid("replay-other-item");
    ClaimId claimId = claimed(sid);
    OrderRecord done = completeWritten(sid, claimId, ESIM, "the complete");
    clock.advance(Duration.ofSeconds(5));
    Item samePurchaseOtherPayload = new Item(ESIM.providerOrderId(), "LPA:1$other");
    completeSuperseded(sid, claimId, ESIM_2, "a complete with another item");
    completeSuperseded(sid, claimId, samePurchaseOtherPayload, "a complete with another payload");
    unchanged(done, sid, claimId, "completes with other items");
    orphansAre(
        List.of(
            new Orphan(sid, claimId, ESIM_2, now()),
            new Orphan(sid, claimId, samePurchaseOtherPayload, now())),
        sid,
        claimId,
        "both other items must be orphaned");
  }

  /**
   * The failing token fails again with another error: not a replay, so Superseded and nothing
   * changes.
   *
   * <p>If this fails, check that a fail replay requires an equal error.
   */
  @Test
  @DisplayName("a retried fail with another error is superseded and changes nothing")
  void replay_failOtherErrorSuperseded() {
    String sid = sid("replay-other-error");
    ClaimId claimId = claimed(sid);
    OrderRecord failed = failWritten(sid, claimId, "declined", "the fail");
    failSuperseded(sid, claimId, "timeout", "a fail with another error");
    unchanged(failed, sid, claimId, "a fail with another error");
  }

  /**
   * A fail retried after another attempt re-claimed the order is no longer a replay: the order is
   * PENDING under a newer claim, so the retry is Superseded and changes nothing.
   *
   * <p>If this fails, check that a fail replay requires the order to still be FAILED as that fail
   * left it.
   */
  @Test
  @DisplayName("a fail retried after the order was claimed again is superseded")
  void replay_failAfterReclaimSuperseded() {
    String sid = sid("replay-after-claim");
    ClaimId first = claimed(sid);
    failWritten(sid, first, "declined", "the fail");
    ClaimId second = claimed(sid);
    OrderRecord live = record(sid, second);
    failSuperseded(sid, first, "declined", "the retried fail after a re-claim");
    unchanged(live, sid, first, "a fail retried after a re-claim");
  }

  /**
   * A superseded complete retried three times (and again after the order was provisioned) is one
   * orphan, with the time of the first rejection; another providerOrderId from the same token is a
   * second orphan.
   *
   * <p>If this fails, check that orphans are unique per (sessionId, claimId, providerOrderId) and
   * that the first one is kept (INSERT ... ON CONFLICT DO NOTHING, HSETNX).
   */
  @Test
  @DisplayName(
      "a superseded complete is orphaned once per token and provider order id, however often it is retried")
  void orphan_oncePerPurchase() {
    String sid = sid("orphan-once");
    ClaimId slow = claimed(sid);
    clock.advance(LEASE);
    ClaimId fresh = claimed(sid);
    Instant first = now();
    for (int i = 0; i < 3; i++) {
      completeSuperseded(sid, slow, ESIM_2, "retry " + i + " of the stale complete");
      clock.advance(Duration.ofSeconds(1));
    }
    Instant second = now();
    completeSuperseded(sid, slow, ESIM_3, "the stale complete of another purchase");
    completeWritten(sid, fresh, ESIM, "the live complete");
    clock.advance(Duration.ofSeconds(1));
    completeSuperseded(sid, slow, ESIM_2, "a retry after the order was provisioned");
    orphansAre(
        List.of(new Orphan(sid, slow, ESIM_2, first), new Orphan(sid, slow, ESIM_3, second)),
        sid,
        slow,
        "one orphan per (claimId, providerOrderId), the first kept");
  }

  /**
   * Orphans from several superseded tokens are listed in the order they were recorded, oldest
   * first, and a later orphan never replaces an earlier one.
   *
   * <p>If this fails, check that orphans are appended (a sequence or list, not a map keyed by
   * order) and read back in insertion order.
   */
  @Test
  @DisplayName("orphans are kept in the order they were recorded, and never overwritten")
  void orphan_keptInOrder() {
    String sid = sid("orphan-order");
    List<ClaimId> claimIds = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      claimIds.add(claimed(sid));
      clock.advance(LEASE);
    }
    List<Orphan> expected = new ArrayList<>();
    int[] order = {1, 0, 2};
    for (int i : order) {
      ClaimId stale = claimIds.get(i);
      Item item = new Item("prov-stale-" + i, "payload " + i);
      completeSuperseded(sid, stale, item, "stale complete " + i);
      expected.add(new Orphan(sid, stale, item, now()));
      clock.advance(Duration.ofMillis(10));
    }
    completeWritten(sid, claimIds.get(3), ESIM, "the current token's complete");
    completeSuperseded(sid, claimIds.get(0), ESIM_3, "another stale purchase");
    expected.add(new Orphan(sid, claimIds.get(0), ESIM_3, now()));
    orphansAre(expected, sid, null, "orphans oldest first, none replaced");
  }
}
