package org.fencekit.store.jdbc;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.fencekit.store.ClaimId;
import org.fencekit.store.Item;
import org.fencekit.store.Mismatch;
import org.fencekit.store.MismatchId;
import org.fencekit.store.OrderRecord;
import org.fencekit.store.OrderSnapshot;
import org.fencekit.store.OrderStatus;
import org.fencekit.store.Orphan;
import org.fencekit.store.OrphanRecord;

/**
 * The one column list of the orders and orphans tables, and an order or an orphan as a row. Times
 * are epoch milliseconds; a token is two columns, its fence and its nonce, except the current
 * claim's, whose fence is the order's {@code fence}. Rows are read by position, in the order of the
 * lists (a read by name makes a driver build a name index for every row).
 */
public final class OrderRows {

  /** The columns of an order, in the order every statement lists and reads them. */
  public static final List<String> ORDER_COLUMNS =
      List.of(
          "session_id",
          "product_id",
          "quantity",
          "customer_email",
          "amount_total",
          "currency",
          "status",
          "provider_order_id",
          "item_payload",
          "last_error",
          "fence",
          "claim_nonce",
          "claimed_at",
          "lease_expires_at",
          "settled_fence",
          "settled_nonce",
          "updated_at",
          "failures",
          "failed_since");

  /** The columns a write changes: all but the snapshot's, which the first claim writes once. */
  public static final List<String> STATE_COLUMNS = ORDER_COLUMNS.subList(6, ORDER_COLUMNS.size());

  /** The columns of an orphan, in the order every statement lists and reads them. */
  public static final List<String> ORPHAN_COLUMNS =
      List.of(
          "session_id",
          "claim_fence",
          "claim_nonce",
          "provider_order_id",
          "item_payload",
          "recorded_at");

  /**
   * The columns of an orphan with its reconciliation, in the order the admin queries list and read
   * them.
   */
  public static final List<String> ORPHAN_RECORD_COLUMNS =
      List.of(
          "session_id",
          "claim_fence",
          "claim_nonce",
          "provider_order_id",
          "item_payload",
          "recorded_at",
          "reconciled_note",
          "reconciled_at");

  /**
   * The columns of a mismatch (a claim that offered another order), in the order every statement
   * lists and reads them: its sort key, then the stored order's fields, then the offered one's.
   */
  public static final List<String> MISMATCH_COLUMNS =
      List.of(
          "recorded_at",
          "session_id",
          "nonce",
          "stored_product_id",
          "stored_quantity",
          "stored_amount_total",
          "stored_currency",
          "offered_product_id",
          "offered_quantity",
          "offered_amount_total",
          "offered_currency");

  private OrderRows() {}

  /** The order in the current row of a result listing {@link #ORDER_COLUMNS}. */
  public static OrderRecord order(ResultSet row) throws SQLException {
    OrderSnapshot snapshot =
        new OrderSnapshot(
            row.getString(1),
            row.getString(2),
            row.getInt(3),
            row.getString(4),
            row.getLong(5),
            row.getString(6));
    String providerOrderId = row.getString(8);
    long fence = row.getLong(11);
    String claimNonce = row.getString(12);
    String settledNonce = row.getString(16);
    return new OrderRecord(
        snapshot,
        OrderStatus.valueOf(row.getString(7)),
        providerOrderId == null ? null : new Item(providerOrderId, row.getString(9)),
        row.getString(10),
        claimNonce == null ? null : new ClaimId(fence, claimNonce),
        instant(row, 13),
        instant(row, 14),
        fence,
        settledNonce == null ? null : new ClaimId(row.getLong(15), settledNonce),
        instant(row, 17),
        row.getInt(18),
        instant(row, 19));
  }

  /** The order a query listing {@link #ORDER_COLUMNS} returns, if it returns a row. */
  public static Optional<OrderRecord> orderIfAny(PreparedStatement query) throws SQLException {
    try (ResultSet rows = query.executeQuery()) {
      return rows.next() ? Optional.of(order(rows)) : Optional.empty();
    }
  }

  /** The orders a query listing {@link #ORDER_COLUMNS} returns, in its order. */
  public static List<OrderRecord> orders(PreparedStatement query) throws SQLException {
    return rows(query, OrderRows::order);
  }

  /** The orphans a query listing {@link #ORPHAN_COLUMNS} returns, in its order. */
  public static List<Orphan> orphans(PreparedStatement query) throws SQLException {
    return rows(query, OrderRows::orphan);
  }

  /** The orphans a query listing {@link #ORPHAN_RECORD_COLUMNS} returns, in its order. */
  public static List<OrphanRecord> orphanRecords(PreparedStatement query) throws SQLException {
    return rows(query, row -> new OrphanRecord(orphan(row), row.getString(7), instant(row, 8)));
  }

  /** The mismatches a query listing {@link #MISMATCH_COLUMNS} returns, in its order. */
  public static List<Mismatch> mismatches(PreparedStatement query) throws SQLException {
    return rows(
        query,
        row -> {
          String sessionId = row.getString(2);
          return new Mismatch(
              new MismatchId(sessionId, row.getString(3)),
              instant(row, 1),
              new OrderSnapshot(
                  sessionId,
                  row.getString(4),
                  row.getInt(5),
                  null,
                  row.getLong(6),
                  row.getString(7)),
              new OrderSnapshot(
                  sessionId,
                  row.getString(8),
                  row.getInt(9),
                  null,
                  row.getLong(10),
                  row.getString(11)));
        });
  }

  /** Reads one value from the current row. */
  private interface RowReader<T> {
    T read(ResultSet row) throws SQLException;
  }

  private static <T> List<T> rows(PreparedStatement query, RowReader<T> reader)
      throws SQLException {
    List<T> all = new ArrayList<>();
    try (ResultSet rows = query.executeQuery()) {
      while (rows.next()) {
        all.add(reader.read(rows));
      }
    }
    return List.copyOf(all);
  }

  private static Orphan orphan(ResultSet rows) throws SQLException {
    return new Orphan(
        rows.getString(1),
        new ClaimId(rows.getLong(2), rows.getString(3)),
        new Item(rows.getString(4), rows.getString(5)),
        Instant.ofEpochMilli(rows.getLong(6)));
  }

  /**
   * Binds every column of {@code record}, in the order of {@link #ORDER_COLUMNS}, from {@code
   * index} on.
   *
   * @return the next free index
   */
  public static int bindOrder(PreparedStatement statement, int index, OrderRecord record)
      throws SQLException {
    OrderSnapshot snapshot = record.snapshot();
    statement.setString(index, snapshot.sessionId());
    statement.setString(index + 1, snapshot.productId());
    statement.setInt(index + 2, snapshot.quantity());
    text(statement, index + 3, snapshot.customerEmail());
    statement.setLong(index + 4, snapshot.amountTotal());
    statement.setString(index + 5, snapshot.currency());
    return bindState(statement, index + 6, record);
  }

  /**
   * Binds the {@link #STATE_COLUMNS} of {@code record}, in that order, from {@code index} on.
   *
   * @return the next free index
   */
  public static int bindState(PreparedStatement statement, int index, OrderRecord record)
      throws SQLException {
    int i = index;
    statement.setString(i++, record.status().name());
    text(statement, i++, record.item() == null ? null : record.item().providerOrderId());
    text(statement, i++, record.item() == null ? null : record.item().payload());
    text(statement, i++, record.lastError());
    statement.setLong(i++, record.fence());
    text(statement, i++, record.claimId() == null ? null : record.claimId().nonce());
    millis(statement, i++, record.claimedAt());
    millis(statement, i++, record.leaseExpiresAt());
    number(statement, i++, record.settledBy() == null ? null : record.settledBy().fence());
    text(statement, i++, record.settledBy() == null ? null : record.settledBy().nonce());
    millis(statement, i++, record.updatedAt());
    statement.setInt(i++, record.failures());
    millis(statement, i++, record.failedSince());
    return i;
  }

  /** Binds every column of {@code orphan}, in the order of {@link #ORPHAN_COLUMNS}, from 1. */
  public static void bindOrphan(PreparedStatement statement, Orphan orphan) throws SQLException {
    statement.setString(1, orphan.sessionId());
    statement.setLong(2, orphan.claimId().fence());
    statement.setString(3, orphan.claimId().nonce());
    statement.setString(4, orphan.item().providerOrderId());
    text(statement, 5, orphan.item().payload());
    statement.setLong(6, orphan.recordedAt().toEpochMilli());
  }

  /** Binds every column of {@code mismatch}, in the order of {@link #MISMATCH_COLUMNS}, from 1. */
  public static void bindMismatch(PreparedStatement statement, Mismatch mismatch)
      throws SQLException {
    statement.setLong(1, mismatch.recordedAt().toEpochMilli());
    statement.setString(2, mismatch.sessionId());
    statement.setString(3, mismatch.id().nonce());
    int i = 4;
    for (OrderSnapshot snapshot : List.of(mismatch.stored(), mismatch.offered())) {
      statement.setString(i++, snapshot.productId());
      statement.setInt(i++, snapshot.quantity());
      statement.setLong(i++, snapshot.amountTotal());
      statement.setString(i++, snapshot.currency());
    }
  }

  /**
   * Fails unless a result's columns are {@code expected}, in that order (the statements and this
   * class come from one jar; a mismatch means it was built from two versions).
   *
   * @param statement the statement's name, for the message
   * @throws IllegalStateException on a mismatch
   */
  public static void checkColumns(ResultSetMetaData result, List<String> expected, String statement)
      throws SQLException {
    List<String> columns = new ArrayList<>();
    for (int i = 1; i <= result.getColumnCount(); i++) {
      columns.add(result.getColumnName(i).toLowerCase(Locale.ROOT));
    }
    if (!columns.equals(expected)) {
      throw new IllegalStateException(
          statement
              + " reads the columns "
              + columns
              + " but the store reads them by position as "
              + expected
              + "; the jar is inconsistent, rebuild it with the SQL and the code from the same"
              + " version");
    }
  }

  private static Instant instant(ResultSet row, int column) throws SQLException {
    long millis = row.getLong(column);
    return row.wasNull() ? null : Instant.ofEpochMilli(millis);
  }

  private static void text(PreparedStatement statement, int index, String value)
      throws SQLException {
    if (value == null) {
      statement.setNull(index, Types.VARCHAR);
    } else {
      statement.setString(index, value);
    }
  }

  private static void millis(PreparedStatement statement, int index, Instant value)
      throws SQLException {
    number(statement, index, value == null ? null : value.toEpochMilli());
  }

  private static void number(PreparedStatement statement, int index, Long value)
      throws SQLException {
    if (value == null) {
      statement.setNull(index, Types.BIGINT);
    } else {
      statement.setLong(index, value);
    }
  }
}
