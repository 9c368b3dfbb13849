package org.fencekit.fulfilment.scenarios;

import static org.fencekit.fulfilment.scenarios.Problem.never;
import static org.fencekit.fulfilment.scenarios.Problem.waitFor;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.fencekit.fulfilment.OrphanReport;
import org.fencekit.store.Item;
import org.fencekit.store.OrderRecord;
import org.fencekit.store.OrderStatus;
import org.fencekit.store.Orphan;

/**
 * Judges what became of a run's orders: what the provider bought for each, what the store holds
 * (status, item, claims granted, last error, orphans kept), and which orphans the handler reported.
 * Orders are named as the scenario named them; purchases are numbered from 1 in the order the
 * provider made them.
 */
final class OrderJudge {

  private final ScenarioRun run;
  private final FakeProvider provider;
  private final RunReport report;

  OrderJudge(ScenarioRun run) {
    this.run = run;
    this.provider = run.provider();
    this.report = run.report();
  }

  /** Whether the provider made {@code purchases} purchases for the order, each with its own key. */
  Problem purchases(String order, int purchases) {
    String sessionId = run.sessionId(order);
    String other = provider.keySharedWith(sessionId);
    if (other != null) {
      return never(
          "a provider call for order '"
              + order
              + "' sent the idempotency key of order '"
              + report.label(other)
              + "' and was handed that order's purchase: a key must name one order (its"
              + " session), never a cart, a customer or a product");
    }
    int made = provider.purchases(sessionId);
    if (made == purchases) {
      return null;
    }
    String text =
        "the provider bought "
            + made
            + " item(s) for order '"
            + order
            + "' ("
            + provider.items(sessionId)
            + ", "
            + provider.calls(sessionId)
            + " call(s)), expected "
            + purchases
            + (made > purchases && purchases > 0
                ? ": the customer's order was bought more than once"
                : made > purchases ? ": bought before the scenario allowed it" : "");
    return made < purchases ? waitFor(text) : never(text);
  }

  /** Whether the store holds the order with {@code status}. */
  Problem status(String order, OrderStatus status) {
    Optional<OrderRecord> record = run.record(order);
    if (record.isEmpty()) {
      return waitFor("order '" + order + "' is not in the store, expected " + status);
    }
    return record.get().status() == status
        ? null
        : waitFor(
            "order '"
                + order
                + "' is "
                + report.describe(record.get())
                + " in the store, expected "
                + status);
  }

  /** Whether the store holds the order with the {@code n}-th item bought for it. */
  Problem itemIsPurchase(String order, int n) {
    List<Item> items = provider.items(run.sessionId(order));
    if (items.size() < n) {
      return waitFor(
          "the provider bought " + items.size() + " item(s) for '" + order + "', not " + n);
    }
    Item expected = items.get(n - 1);
    Optional<OrderRecord> record = run.record(order);
    if (record.isPresent() && expected.equals(record.get().item())) {
      return null;
    }
    return waitFor(
        "order '"
            + order
            + "' shows "
            + record
                .map(r -> "item " + r.item() + "; it is " + report.describe(r))
                .orElse("nothing")
            + ", expected purchase "
            + n
            + " ("
            + expected.providerOrderId()
            + "): the customer's item is missing or was replaced");
  }

  /** Whether the store kept exactly the listed purchases as orphans of the order. */
  Problem orphans(String order, int... purchaseNumbers) {
    List<String> kept = new ArrayList<>();
    for (Orphan orphan : run.store().orphans(run.sessionId(order))) {
      kept.add(orphan.item().providerOrderId());
    }
    return listed(
        kept,
        purchaseIds(order, purchaseNumbers),
        "the store kept orphans " + kept + " for order '" + order + "'",
        "");
  }

  /** Whether the handler reported exactly the listed purchases as orphans of the order, once. */
  Problem reported(String order, int... purchaseNumbers) {
    List<String> reported = new ArrayList<>();
    for (OrphanReport orphanReport : run.reports(order)) {
      reported.add(orphanReport.orphan().providerOrderId());
    }
    return listed(
        reported,
        purchaseIds(order, purchaseNumbers),
        "the handler reported orphans "
            + reported
            + " for order '"
            + order
            + "' to its orphan"
            + " listener",
        reported.isEmpty()
            ? ": a superseded complete is a purchase nobody was shown (real money);"
                + " report it to the listener the context gives"
            : "");
  }

  private List<String> purchaseIds(String order, int[] purchaseNumbers) {
    List<Item> items = provider.items(run.sessionId(order));
    List<String> ids = new ArrayList<>();
    for (int n : purchaseNumbers) {
      ids.add(items.size() >= n ? items.get(n - 1).providerOrderId() : "purchase " + n);
    }
    return ids;
  }

  // A list that is a proper beginning of the expected one may still grow; any other is wrong.
  private static Problem listed(
      List<String> found, List<String> expected, String what, String hint) {
    if (found.equals(expected)) {
      return null;
    }
    String text = what + ", expected " + expected + hint;
    boolean mayGrow =
        found.size() < expected.size() && expected.subList(0, found.size()).equals(found);
    return mayGrow ? waitFor(text) : never(text);
  }

  /** Whether the store granted {@code claims} claims on the order. */
  Problem claimsGranted(String order, long claims) {
    long granted = run.record(order).map(OrderRecord::fence).orElse(0L);
    if (granted == claims) {
      return null;
    }
    String text =
        "the store granted "
            + granted
            + " claim(s) on order '"
            + order
            + "', expected "
            + claims
            + (granted > claims
                ? ": another attempt became owner while one was still working"
                : "");
    return granted < claims ? waitFor(text) : never(text);
  }

  /** Whether nothing is stored for the order. */
  Problem notClaimed(String order) {
    return run.record(order)
        .map(
            r ->
                never(
                    "order '"
                        + order
                        + "' was claimed ("
                        + report.describe(r)
                        + "), expected untouched"))
        .orElse(null);
  }

  /** Whether the order's last error mentions {@code text}. */
  Problem lastErrorContains(String order, String text) {
    String error = run.record(order).map(OrderRecord::lastError).orElse(null);
    return error != null && error.contains(text)
        ? null
        : waitFor(
            "order '"
                + order
                + "' has last error "
                + (error == null ? "none" : "'" + error + "'")
                + ", expected one that mentions '"
                + text
                + "'");
  }
}
