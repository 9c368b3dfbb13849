package org.fencekit.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.time.Duration;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.fencekit.store.ClaimId;
import org.fencekit.store.ClaimResult;
import org.fencekit.store.OrderField;
import org.fencekit.store.OrderRecord;
import org.fencekit.store.OrderSnapshot;
import org.fencekit.store.OrderStore;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * A claim that offers another order under a stored order's session id: one that differs in a field
 * of {@link OrderField} answers {@link ClaimResult.Mismatch} naming exactly those fields, carries
 * the stored record and writes nothing, whatever the order's status; one that differs only in the
 * e-mail or the currency's case is the same order and answers as any claim does. Part of {@link
 * OrderStoreTck}; the listing of recorded mismatches is {@link AdminMismatchRules}'.
 */
public abstract class MismatchRules extends TckFixture {

  /** For the nested class of {@link OrderStoreTck} that runs this group. */
  MismatchRules() {}

  /** The statuses an order is put in before another order is offered under its key. */
  enum Status {
    /** PENDING with a live lease: a claim would answer InFlight. */
    HELD,
    /** PENDING with a lease that ran out: a claim would be granted. */
    STUCK,
    /** FAILED: a claim would be granted. */
    FAILED,
    /** PROVISIONED: a claim would answer Provisioned. */
    PROVISIONED
  }

  /**
   * Puts a new order in {@code status} and returns its record; the clock ends where it was read.
   */
  OrderRecord orderIn(String sid, Status status) {
    ClaimId claimId = claimed(sid);
    switch (status) {
      case HELD -> {}
      case STUCK -> clock.advance(LEASE);
      case FAILED -> failWritten(sid, claimId, "declined", "the fail");
      case PROVISIONED -> completeWritten(sid, claimId, ESIM, "the complete");
    }
    return record(sid, claimId);
  }

  /** The TCK's snapshot of {@code sid} with {@code field} changed. */
  static OrderSnapshot differingIn(String sid, OrderField field) {
    OrderSnapshot s = snapshot(sid);
    return new OrderSnapshot(
        sid,
        field == OrderField.PRODUCT_ID ? "esim-us-10gb" : s.productId(),
        field == OrderField.QUANTITY ? s.quantity() + 2 : s.quantity(),
        s.customerEmail(),
        field == OrderField.AMOUNT_TOTAL ? s.amountTotal() + 1 : s.amountTotal(),
        field == OrderField.CURRENCY ? "eur" : s.currency());
  }

  /**
   * Asserts {@code result} is a Mismatch naming exactly {@code fields} and carrying {@code before},
   * and that the stored order is still {@code before}.
   */
  void mismatched(ClaimResult result, Set<OrderField> fields, OrderRecord before, String what) {
    String sid = before.sessionId();
    if (!(result instanceof ClaimResult.Mismatch mismatch)) {
      fail(
          String.format(
              "%s must answer Mismatch naming %s, but answered %s; %s",
              what,
              OrderField.names(fields),
              result.getClass().getSimpleName(),
              describe(sid, null, result.record(), clock.instant())));
      return;
    }
    assertEquals(
        List.copyOf(EnumSet.copyOf(fields)),
        List.copyOf(mismatch.fields()),
        says(what + " must name exactly the differing fields, in OrderField's order", sid, null));
    assertEquals(
        before, mismatch.record(), says(what + " must carry the stored record", sid, null));
    unchanged(before, sid, null, what);
  }

  /**
   * For each field of {@link OrderField} and each status (held, stuck, failed, provisioned), a
   * claim that differs in that field alone answers Mismatch naming it, with the stored record, and
   * changes nothing; the order then answers its own snapshot as before (the stuck order is granted
   * fence 2, so the mismatch took no fence).
   *
   * <p>If this fails, check that the claim compares the offered snapshot with the stored one, field
   * by field, before it looks at the status or the lease, and returns before writing anything.
   */
  @Test
  @DisplayName(
      "a claim differing in one order field answers Mismatch naming it and writes nothing, on every status")
  void mismatch_eachFieldOnEveryStatus() {
    for (Status status : Status.values()) {
      for (OrderField field : OrderField.values()) {
        String sid = sid("mismatch-" + status + "-" + field.key());
        OrderRecord before = orderIn(sid, status);
        String what = "on a " + status + " order, a claim differing in " + field.key();
        mismatched(store().claim(differingIn(sid, field), LEASE), Set.of(field), before, what);
        ClaimResult own = store().claim(snapshot(sid), LEASE);
        Class<? extends ClaimResult> expected =
            switch (status) {
              case HELD -> ClaimResult.InFlight.class;
              case STUCK, FAILED -> ClaimResult.Claimed.class;
              case PROVISIONED -> ClaimResult.Provisioned.class;
            };
        assertInstanceOf(
            expected,
            own,
            says("after " + what + ", a claim of the stored order itself", sid, null));
        if (own instanceof ClaimResult.Claimed claimed) {
          assertEquals(
              before.fence() + 1,
              claimed.claimId().fence(),
              says("the mismatch must not have taken a fence", sid, claimed.claimId()));
        }
      }
    }
  }

  /**
   * A claim differing in every order field names all four, in {@link OrderField}'s order; one
   * differing in two names those two.
   *
   * <p>If this fails, check that the store compares every field and does not stop at the first.
   */
  @Test
  @DisplayName("a claim differing in several order fields names each of them, in order")
  void mismatch_everyDifferingFieldNamed() {
    String sid = sid("mismatch-all");
    OrderRecord before = orderIn(sid, Status.FAILED);
    OrderSnapshot all = new OrderSnapshot(sid, "esim-jp-1gb", 7, null, 1, "jpy");
    mismatched(
        store().claim(all, LEASE),
        EnumSet.allOf(OrderField.class),
        before,
        "a claim differing in every field");
    OrderSnapshot two = new OrderSnapshot(sid, "esim-eu-5gb", 1, "ada@example.com", 2999, "USD");
    mismatched(
        store().claim(differingIn(sid, OrderField.PRODUCT_ID), LEASE),
        Set.of(OrderField.PRODUCT_ID),
        before,
        "a claim differing in the product");
    mismatched(
        store().claim(two, LEASE),
        Set.of(OrderField.AMOUNT_TOTAL),
        before,
        "a claim differing in the amount (and the currency's case)");
    OrderSnapshot quantityAndCurrency = new OrderSnapshot(sid, "esim-eu-5gb", 3, null, 1999, "gbp");
    mismatched(
        store().claim(quantityAndCurrency, LEASE),
        EnumSet.of(OrderField.QUANTITY, OrderField.CURRENCY),
        before,
        "a claim differing in the quantity and the currency");
  }

  /**
   * A claim that differs from the stored snapshot only in the customer's e-mail (another, or none)
   * or in the currency's case is the same order, on every status: it answers what any claim of the
   * order answers (InFlight, Claimed, Provisioned) and the stored snapshot stays the first one.
   *
   * <p>If this fails, check that the e-mail is not compared and that the currency is compared
   * ignoring case (SQL: lower() on both sides; Lua: string.lower).
   */
  @Test
  @DisplayName(
      "a claim differing only in e-mail or currency case is the same order and answers as before")
  void mismatch_emailAndCurrencyCaseAreSameOrder() {
    for (Status status : Status.values()) {
      Map<String, java.util.function.Function<String, OrderSnapshot>> same = new LinkedHashMap<>();
      same.put("another e-mail", s -> withEmailAndCurrency(s, "grace@example.com", "usd"));
      same.put("no e-mail", s -> withEmailAndCurrency(s, null, "usd"));
      same.put(
          "the currency in upper case", s -> withEmailAndCurrency(s, "ada@example.com", "USD"));
      same.forEach(
          (how, offered) -> {
            String sid = sid("same-" + status);
            OrderRecord before = orderIn(sid, status);
            ClaimResult result = store().claim(offered.apply(sid), LEASE);
            String what = "on a " + status + " order, a claim with " + how;
            Class<? extends ClaimResult> expected =
                switch (status) {
                  case HELD -> ClaimResult.InFlight.class;
                  case STUCK, FAILED -> ClaimResult.Claimed.class;
                  case PROVISIONED -> ClaimResult.Provisioned.class;
                };
            assertInstanceOf(expected, result, says(what + " is the same order", sid, null));
            assertEquals(
                before.snapshot(),
                record(sid, null).snapshot(),
                says(what + " keeps the first snapshot", sid, null));
          });
    }
  }

  private static OrderSnapshot withEmailAndCurrency(String sid, String email, String currency) {
    OrderSnapshot s = snapshot(sid);
    return new OrderSnapshot(sid, s.productId(), s.quantity(), email, s.amountTotal(), currency);
  }

  /**
   * Threads released together claim one new order, half with one cart, half with another: exactly
   * one claim is granted; every other claim of the winner's cart answers InFlight, every claim of
   * the other cart Mismatch naming the product and the amount; the stored snapshot is the winner's.
   *
   * <p>If this fails, check that the creation and the comparison happen in one atomic step: a claim
   * that lost the race to create the order must compare against the winner's snapshot, not create
   * its own or overwrite it.
   */
  @Test
  @DisplayName(
      "of concurrent first claims of two carts under one key, one wins and the other cart mismatches")
  void mismatch_concurrentCartsOneOrder() {
    int threads = suite.raceThreads();
    for (int round = 0; round < 4; round++) {
      String sid = sid("mismatch-race");
      OrderSnapshot a = snapshot(sid);
      OrderSnapshot b = new OrderSnapshot(sid, "esim-us-10gb", 1, null, 4500, "USD");
      OrderStore racing = store(); // made before the race: a missing server skips, not fails
      List<ClaimResult> results =
          Race.run(threads, i -> racing.claim(i % 2 == 0 ? a : b, Duration.ofHours(1)));
      List<ClaimResult> granted =
          results.stream().filter(r -> r instanceof ClaimResult.Claimed).toList();
      assertEquals(1, granted.size(), says("exactly one claim must be granted", sid, null));
      OrderSnapshot winner = granted.get(0).record().snapshot();
      OrderRecord stored = record(sid, null);
      assertEquals(winner, stored.snapshot(), says("the winner's snapshot is stored", sid, null));
      for (int i = 0; i < threads; i++) {
        ClaimResult result = results.get(i);
        if (result == granted.get(0)) {
          continue;
        }
        OrderSnapshot offered = i % 2 == 0 ? a : b;
        if (offered.equals(winner)) {
          assertInstanceOf(
              ClaimResult.InFlight.class,
              result,
              says("a claim of the winner's cart while it is held", sid, null));
        } else {
          var mismatch =
              assertInstanceOf(
                  ClaimResult.Mismatch.class,
                  result,
                  says("a claim of the other cart under the winner's key", sid, null));
          assertEquals(
              EnumSet.of(OrderField.PRODUCT_ID, OrderField.AMOUNT_TOTAL),
              mismatch.fields(),
              says("the other cart differs in product and amount", sid, null));
          assertTrue(
              mismatch.record().snapshot().equals(winner),
              says("a mismatch carries the winner's snapshot", sid, null));
        }
      }
    }
  }
}
