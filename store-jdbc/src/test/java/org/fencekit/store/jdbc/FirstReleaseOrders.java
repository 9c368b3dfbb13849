package org.fencekit.store.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.fencekit.store.ClaimId;
import org.fencekit.store.ClaimResult;
import org.fencekit.store.Item;
import org.fencekit.store.Mismatch;
import org.fencekit.store.OrderField;
import org.fencekit.store.OrderRecord;
import org.fencekit.store.OrderSnapshot;
import org.fencekit.store.OrderStatus;
import org.fencekit.store.OrderStore;
import org.fencekit.store.OrderStoreAdmin;
import org.fencekit.store.Orphan;
import org.fencekit.store.OrphanId;
import org.fencekit.store.OrphanRecord;
import org.fencekit.store.ReconcileResult;
import org.fencekit.store.WriteResult;

/**
 * The orders the SQL stores' upgrade tests put in a schema of the first release (V1), and what a
 * store must answer for them once upgraded, in one place for SQLite and PostgreSQL (this module's
 * test jar). The rows, as {@link #insert} writes them into V1's tables:
 *
 * <ul>
 *   <li>{@code cs_stuck}: PENDING, claimed by fence 2 (nonce {@link #N1}) {@code at(10 min)} ago
 *       with a lease to {@code at(8 min)}, after a fail by fence 1 ({@link #N2}, "provider said
 *       503");
 *   <li>{@code cs_failed}: FAILED by fence 1 ({@link #N3}, "declined") at {@code at(5 min)};
 *   <li>{@code cs_done}: PROVISIONED by fence 2 ({@link #N4}) with two orphans of fence 1 ({@link
 *       #N5}), {@link #stale}.
 * </ul>
 */
public final class FirstReleaseOrders {

  public static final String N1 = "11111111111111111111111111111111";
  public static final String N2 = "22222222222222222222222222222222";
  public static final String N3 = "33333333333333333333333333333333";
  public static final String N4 = "44444444444444444444444444444444";
  public static final String N5 = "55555555555555555555555555555555";

  private final Instant t;

  /**
   * @param t the instant the rows' ages are counted back from, and the clock of the store under
   *     test
   */
  public FirstReleaseOrders(Instant t) {
    this.t = t;
  }

  /** Epoch ms {@code beforeT} before {@code t}, as the V1 columns hold instants. */
  public long at(Duration beforeT) {
    return t.minus(beforeT).toEpochMilli();
  }

  /**
   * Writes the rows above into the V1 tables {@code fencekit_orders} and {@code fencekit_orphans}
   * that {@code statement} sees, in the columns both dialects' V1 share.
   *
   * @param claimFenceColumn whether the V1 orders table has SQLite's {@code claim_fence}, which
   *     repeats the fence of a held claim
   */
  public void insert(Statement statement, boolean claimFenceColumn) throws SQLException {
    List<String> orders =
        List.of(
            "'cs_stuck', 'esim', 1, 'ada@example.com', 1999, 'usd', 'PENDING', NULL, NULL,"
                + " 'provider said 503', 2, '"
                + N1
                + "', "
                + at(Duration.ofMinutes(10))
                + ", "
                + at(Duration.ofMinutes(8))
                + ", 1, '"
                + N2
                + "', "
                + at(Duration.ofMinutes(10)),
            "'cs_failed', 'esim', 1, NULL, 500, 'eur', 'FAILED', NULL, NULL, 'declined', 1, NULL,"
                + " NULL, NULL, 1, '"
                + N3
                + "', "
                + at(Duration.ofMinutes(5)),
            "'cs_done', 'esim', 2, NULL, 0, 'usd', 'PROVISIONED', 'prov-1', 'LPA:1$a', NULL, 2, NULL,"
                + " NULL, NULL, 2, '"
                + N4
                + "', "
                + at(Duration.ofMinutes(3)));
    for (String order : orders) {
      statement.execute(
          "INSERT INTO fencekit_orders (session_id, product_id, quantity, customer_email,"
              + " amount_total, currency, status, provider_order_id, item_payload, last_error,"
              + " fence, claim_nonce, claimed_at, lease_expires_at, settled_fence, settled_nonce,"
              + " updated_at) VALUES ("
              + order
              + ")");
    }
    if (claimFenceColumn) {
      statement.execute(
          "UPDATE fencekit_orders SET claim_fence = fence WHERE claim_nonce IS NOT NULL");
    }
    for (int i = 1; i <= 2; i++) {
      statement.execute(
          "INSERT INTO fencekit_orphans (session_id, claim_fence, claim_nonce,"
              + " provider_order_id, item_payload, recorded_at) VALUES ('cs_done', 1, '"
              + N5
              + "', 'prov-stale-"
              + i
              + "', 'LPA:1$stale', "
              + (at(Duration.ofMinutes(4)) + i)
              + ")");
    }
  }

  /** The orphan {@code i} (1 or 2) of {@code cs_done}, recorded {@code at(4 min) + i}. */
  public Orphan stale(int i) {
    return new Orphan(
        "cs_done",
        new ClaimId(1, N5),
        new Item("prov-stale-" + i, "LPA:1$stale"),
        Instant.ofEpochMilli(at(Duration.ofMinutes(4)) + i));
  }

  /**
   * Asserts that {@code store}, upgraded from those rows with its clock at {@code t}, answers each
   * order and orphan as the first release left it (a FAILED order, or one failed before, counting
   * one failure since its last write), that every listing finds them, and that it writes on: a
   * reconcile, and a claim and fail of {@code cs_stuck} that go on from its fence and count its
   * failures.
   */
  public <S extends OrderStore & OrderStoreAdmin> void assertUpgraded(S store) {
    OrderSnapshot ada = new OrderSnapshot("cs_stuck", "esim", 1, "ada@example.com", 1999, "usd");
    Instant claimedAt = Instant.ofEpochMilli(at(Duration.ofMinutes(10)));
    assertEquals(
        Optional.of(
            new OrderRecord(
                ada,
                OrderStatus.PENDING,
                null,
                "provider said 503",
                new ClaimId(2, N1),
                claimedAt,
                Instant.ofEpochMilli(at(Duration.ofMinutes(8))),
                2,
                new ClaimId(1, N2),
                claimedAt,
                1,
                claimedAt)),
        store.get("cs_stuck"),
        "an order that failed before counts one failure, since its last write");
    Instant failedAt = Instant.ofEpochMilli(at(Duration.ofMinutes(5)));
    assertEquals(
        Optional.of(
            new OrderRecord(
                new OrderSnapshot("cs_failed", "esim", 1, null, 500, "eur"),
                OrderStatus.FAILED,
                null,
                "declined",
                null,
                null,
                null,
                1,
                new ClaimId(1, N3),
                failedAt,
                1,
                failedAt)),
        store.get("cs_failed"));
    OrderRecord done = store.get("cs_done").orElseThrow();
    assertEquals(new Item("prov-1", "LPA:1$a"), done.item());
    assertEquals(0, done.failures());
    assertEquals(List.of(stale(1), stale(2)), store.orphans("cs_done"), "the orphans are kept");

    assertEquals(
        List.of(OrphanRecord.unreconciled(stale(1)), OrphanRecord.unreconciled(stale(2))),
        store.unreconciledOrphans(null, 10).items());
    assertEquals(List.of("cs_stuck"), ids(store.stuckOrders(Duration.ZERO, null, 10).items()));
    assertEquals(
        List.of("cs_stuck"),
        ids(store.stuckOrders(Duration.ofMinutes(8), null, 10).items()),
        "the lease ran out exactly 8 minutes ago");
    assertEquals(
        List.of("cs_failed"),
        ids(store.failedOrders(1, OrderStoreAdmin.MAX_AGE, null, 10).items()));
    assertInstanceOf(
        ReconcileResult.Reconciled.class, store.reconcile(OrphanId.of(stale(1)), "refunded", t));
    assertEquals(
        List.of(OrphanRecord.unreconciled(stale(2))), store.unreconciledOrphans(null, 10).items());

    ClaimId third =
        assertInstanceOf(ClaimResult.Claimed.class, store.claim(ada, Duration.ofMinutes(2)))
            .claimId();
    assertEquals(3, third.fence(), "the fence goes on from the first release's");
    OrderRecord failed =
        assertInstanceOf(WriteResult.Written.class, store.fail("cs_stuck", third, "again"))
            .record();
    assertEquals(2, failed.failures(), "the fail counts on from the upgraded count");
    assertEquals(claimedAt, failed.failedSince());

    // V3 computes nothing for old rows: a claim compares their stored snapshot columns
    OrderRecord doneBefore = store.get("cs_done").orElseThrow();
    OrderSnapshot otherCart = new OrderSnapshot("cs_done", "esim", 3, null, 0, "USD");
    ClaimResult.Mismatch mismatch =
        assertInstanceOf(ClaimResult.Mismatch.class, store.claim(otherCart, Duration.ofMinutes(2)));
    assertEquals(java.util.Set.of(OrderField.QUANTITY), mismatch.fields());
    assertEquals(Optional.of(doneBefore), store.get("cs_done"), "a mismatch writes nothing");
    List<Mismatch> rows = store.mismatches(null, 10).items();
    assertEquals(1, rows.size(), () -> "one mismatch recorded: " + rows);
    assertEquals(doneBefore.snapshot().quantity(), rows.get(0).stored().quantity());
    assertEquals(3, rows.get(0).offered().quantity());
    assertInstanceOf(
        ClaimResult.Provisioned.class,
        store.claim(
            new OrderSnapshot("cs_done", "esim", 2, "x@example.com", 0, "USD"),
            Duration.ofMinutes(2)),
        "the same order (e-mail, currency case) is the provisioned order");
  }

  private static List<String> ids(List<OrderRecord> orders) {
    return orders.stream().map(OrderRecord::sessionId).toList();
  }
}
