package org.fencekit.admin;

import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.fencekit.store.Item;
import org.fencekit.store.Mismatch;
import org.fencekit.store.OrderField;
import org.fencekit.store.OrderRecord;
import org.fencekit.store.OrderSnapshot;
import org.fencekit.store.OrphanRecord;
import org.fencekit.store.Page;

/**
 * How orders and orphans look in the output: the JSON documents (field names stable, instants in
 * ISO-8601 UTC) and the table cells.
 */
final class Views {

  private Views() {}

  /** An order as JSON. */
  static Map<String, Object> order(OrderRecord record) {
    OrderSnapshot s = record.snapshot();
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("sessionId", s.sessionId());
    json.put("status", record.status().name());
    json.put("productId", s.productId());
    json.put("quantity", s.quantity());
    json.put("customerEmail", s.customerEmail());
    json.put("amountTotal", s.amountTotal());
    json.put("currency", s.currency());
    json.put("fence", record.fence());
    json.put("claimId", text(record.claimId()));
    json.put("claimedAt", text(record.claimedAt()));
    json.put("leaseExpiresAt", text(record.leaseExpiresAt()));
    json.put("settledBy", text(record.settledBy()));
    json.put("item", item(record.item()));
    json.put("lastError", record.lastError());
    json.put("failures", record.failures());
    json.put("failedSince", text(record.failedSince()));
    json.put("updatedAt", text(record.updatedAt()));
    return json;
  }

  /** An orphan as JSON. */
  static Map<String, Object> orphan(OrphanRecord record) {
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("sessionId", record.orphan().sessionId());
    json.put("claimId", record.orphan().claimId().toString());
    json.put("providerOrderId", record.orphan().item().providerOrderId());
    json.put("payload", record.orphan().item().payload());
    json.put("recordedAt", text(record.orphan().recordedAt()));
    json.put("reconciled", record.reconciled());
    json.put("note", record.note());
    json.put("reconciledAt", text(record.reconciledAt()));
    return json;
  }

  /**
   * A mismatch as JSON: the order, the refused claim's nonce, when, the fields that differ (their
   * lower-case keys) and both carts.
   */
  static Map<String, Object> mismatch(Mismatch mismatch) {
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("sessionId", mismatch.sessionId());
    json.put("nonce", mismatch.id().nonce());
    json.put("recordedAt", text(mismatch.recordedAt()));
    json.put("fields", mismatch.fields().stream().map(OrderField::key).toList());
    json.put("stored", cartJson(mismatch.stored()));
    json.put("offered", cartJson(mismatch.offered()));
    return json;
  }

  private static Map<String, Object> cartJson(OrderSnapshot snapshot) {
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("productId", snapshot.productId());
    json.put("quantity", snapshot.quantity());
    json.put("amountTotal", snapshot.amountTotal());
    json.put("currency", snapshot.currency());
    return json;
  }

  /** What an order sells, as a cell: {@code esim-eu-5gb x 1, 1500 eur}. */
  static String cart(OrderSnapshot snapshot) {
    return snapshot.productId()
        + " x "
        + snapshot.quantity()
        + ", "
        + snapshot.amountTotal()
        + " "
        + snapshot.currency();
  }

  /** A page as JSON: its items and the cursor of the next page (null for the last). */
  static <T> Map<String, Object> page(List<Map<String, Object>> items, Page<T> page) {
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("items", items);
    json.put("nextCursor", page.nextCursor());
    return json;
  }

  /** The columns of an orphan table. */
  static final List<String> ORPHAN_COLUMNS =
      List.of("SESSION", "CLAIM", "PROVIDER ORDER", "RECORDED AT", "RECONCILED");

  /** An orphan as a table row. */
  static List<String> orphanRow(OrphanRecord record) {
    return List.of(
        record.orphan().sessionId(),
        record.orphan().claimId().toString(),
        record.orphan().item().providerOrderId(),
        text(record.orphan().recordedAt()),
        record.reconciled() ? text(record.reconciledAt()) + " " + record.note() : "no");
  }

  private static Map<String, Object> item(Item item) {
    if (item == null) {
      return null;
    }
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("providerOrderId", item.providerOrderId());
    json.put("payload", item.payload());
    return json;
  }

  /** A value's text, or null. */
  static String text(Object value) {
    return value == null ? null : value.toString();
  }

  /** How long ago {@code then} was, as {@code 3h12m}, {@code 45s}; {@code -} for null. */
  static String ago(Instant then, Instant now) {
    if (then == null) {
      return "-";
    }
    Duration age = Duration.between(then, now);
    return age.isNegative() ? "in " + compact(age.negated()) : compact(age) + " ago";
  }

  /** {@code then}, and how long ago it was in brackets. */
  static String withAge(Instant then, Instant now) {
    return then + " (" + ago(then, now) + ")";
  }

  private static String compact(Duration d) {
    long s = d.toSeconds();
    if (s < 60) {
      return s + "s";
    }
    if (s < 3600) {
      return s / 60 + "m" + (s % 60 == 0 ? "" : s % 60 + "s");
    }
    if (s < 86_400) {
      return s / 3600 + "h" + (s % 3600 / 60 == 0 ? "" : s % 3600 / 60 + "m");
    }
    return s / 86_400 + "d" + (s % 86_400 / 3600 == 0 ? "" : s % 86_400 / 3600 + "h");
  }
}
