package org.fencekit.store.jdbc;

import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.fencekit.store.Mismatch;
import org.fencekit.store.OrderRecord;
import org.fencekit.store.Orphan;
import org.fencekit.store.OrphanId;
import org.fencekit.store.OrphanRecord;
import org.fencekit.store.spi.AdminStorage;

/**
 * The single-statement reads and the admin queries of the SQL stores, once: the SQLite and
 * PostgreSQL storages extend this and give it a way to run one statement. The statements ({@code
 * org/fencekit/store/jdbc/shared/select-*.sql}, {@code org/fencekit/store/jdbc/admin/*.sql}) are
 * the same for both dialects; each admin query is a range scan of an index V2 creates for it (see
 * {@link Migrations}), and a page asks for its first row with a sort key after the cursor's
 * (row-value comparison), so it reads what it returns.
 */
public abstract class JdbcAdminStorage implements AdminStorage {

  /** A key below every real one, for a first page: times are after it, ids are not empty. */
  private static final long BEFORE_ALL = Long.MIN_VALUE;

  /**
   * The admin statements, with a store's names filled in.
   *
   * @param unreconciledOrphans a page of unreconciled orphans
   * @param orphan one orphan by identity
   * @param markReconciled the conditional mark
   * @param stuckOrders a page of stuck orders
   * @param failedOrders a page of failed orders
   * @param mismatches a page of mismatches
   */
  public record AdminStatements(
      String unreconciledOrphans,
      String orphan,
      String markReconciled,
      String stuckOrders,
      String failedOrders,
      String mismatches) {

    /** The statements with the names of {@code sql} (which must know the derived names too). */
    public static AdminStatements from(SqlTemplates sql) {
      String at = "/org/fencekit/store/jdbc/admin/";
      return new AdminStatements(
          sql.statement(at + "unreconciled-orphans.sql"),
          sql.statement(at + "orphan.sql"),
          sql.statement(at + "mark-reconciled.sql"),
          sql.statement(at + "stuck-orders.sql"),
          sql.statement(at + "failed-orders.sql"),
          sql.statement(at + "mismatches.sql"));
    }

    /** All of them, to check they compile against the tables at start. */
    public List<String> all() {
      return List.of(
          unreconciledOrphans, orphan, markReconciled, stuckOrders, failedOrders, mismatches);
    }
  }

  /** Binds and runs one statement, and reads what it returned. */
  @FunctionalInterface
  protected interface StatementWork<T> {
    /** Runs the work on the prepared statement. */
    T run(PreparedStatement statement) throws SQLException;
  }

  private final String selectOrder;
  private final String selectOrphans;
  private final AdminStatements admin;

  /**
   * @param selectOrder select-order.sql for the store's tables: one order by session id
   * @param selectOrphans select-orphans.sql for the store's tables: an order's orphans
   * @param admin the admin statements for the store's tables
   */
  protected JdbcAdminStorage(String selectOrder, String selectOrphans, AdminStatements admin) {
    this.selectOrder = selectOrder;
    this.selectOrphans = selectOrphans;
    this.admin = admin;
  }

  /**
   * Runs one statement on its own (auto-commit, or the store's own write step for a write), and
   * translates a failure into the store's {@link org.fencekit.store.StoreUnavailableException}.
   *
   * @param operation the admin call, for messages
   * @param sessionId the order concerned, or {@code null}
   * @param writes whether the statement writes (a mark)
   */
  protected abstract <T> T runStatement(
      String operation, String sessionId, boolean writes, String sql, StatementWork<T> work);

  /** select-order.sql for the store's tables. */
  protected final String selectOrder() {
    return selectOrder;
  }

  @Override
  public Optional<OrderRecord> read(String sessionId) {
    return runStatement(
        "get",
        sessionId,
        false,
        selectOrder,
        statement -> {
          statement.setString(1, sessionId);
          return OrderRows.orderIfAny(statement);
        });
  }

  @Override
  public List<Orphan> orphans(String sessionId) {
    return runStatement(
        "orphans",
        sessionId,
        false,
        selectOrphans,
        statement -> {
          statement.setString(1, sessionId);
          return OrderRows.orphans(statement);
        });
  }

  @Override
  public List<OrphanRecord> unreconciledOrphans(OrphanPosition after, int limit) {
    return runStatement(
        "unreconciledOrphans",
        null,
        false,
        admin.unreconciledOrphans(),
        statement -> {
          if (after == null) {
            statement.setLong(1, BEFORE_ALL);
            statement.setString(2, "");
            statement.setLong(3, BEFORE_ALL);
            statement.setString(4, "");
            statement.setString(5, "");
          } else {
            statement.setLong(1, after.recordedAt().toEpochMilli());
            bindIdentity(statement, 2, after.id());
          }
          statement.setInt(6, limit);
          return OrderRows.orphanRecords(statement);
        });
  }

  @Override
  public Optional<OrphanRecord> orphan(OrphanId id) {
    return runStatement(
        "orphan",
        id.sessionId(),
        false,
        admin.orphan(),
        statement -> {
          bindIdentity(statement, 1, id);
          return OrderRows.orphanRecords(statement).stream().findFirst();
        });
  }

  @Override
  public Optional<OrphanRecord> markReconciled(OrphanId id, String note, Instant reconciledAt) {
    runStatement(
        "reconcile",
        id.sessionId(),
        true,
        admin.markReconciled(),
        statement -> {
          statement.setString(1, note);
          statement.setLong(2, reconciledAt.toEpochMilli());
          bindIdentity(statement, 3, id);
          return statement.executeUpdate();
        });
    // A reconciliation never changes once recorded, so reading it after the mark is exact.
    return orphan(id);
  }

  @Override
  public List<Mismatch> mismatches(MismatchPosition after, int limit) {
    return runStatement(
        "mismatches",
        null,
        false,
        admin.mismatches(),
        statement -> {
          statement.setLong(1, after == null ? BEFORE_ALL : after.recordedAt().toEpochMilli());
          statement.setString(2, after == null ? "" : after.id().sessionId());
          statement.setString(3, after == null ? "" : after.id().nonce());
          statement.setInt(4, limit);
          return OrderRows.mismatches(statement);
        });
  }

  @Override
  public List<OrderRecord> stuckOrders(Instant expiredBy, OrderPosition after, int limit) {
    return runStatement(
        "stuckOrders",
        null,
        false,
        admin.stuckOrders(),
        statement -> {
          statement.setLong(1, expiredBy.toEpochMilli());
          bindPosition(statement, 2, after);
          statement.setInt(4, limit);
          return OrderRows.orders(statement);
        });
  }

  @Override
  public List<OrderRecord> failedOrders(
      int minFailures, Instant failedBy, OrderPosition after, int limit) {
    return runStatement(
        "failedOrders",
        null,
        false,
        admin.failedOrders(),
        statement -> {
          statement.setInt(1, minFailures);
          statement.setLong(2, failedBy.toEpochMilli());
          bindPosition(statement, 3, after);
          statement.setInt(5, limit);
          return OrderRows.orders(statement);
        });
  }

  private static void bindIdentity(PreparedStatement statement, int index, OrphanId id)
      throws SQLException {
    statement.setString(index, id.sessionId());
    statement.setLong(index + 1, id.claimId().fence());
    statement.setString(index + 2, id.claimId().nonce());
    statement.setString(index + 3, id.providerOrderId());
  }

  private static void bindPosition(PreparedStatement statement, int index, OrderPosition after)
      throws SQLException {
    statement.setLong(index, after == null ? BEFORE_ALL : after.at().toEpochMilli());
    statement.setString(index + 1, after == null ? "" : after.sessionId());
  }
}
