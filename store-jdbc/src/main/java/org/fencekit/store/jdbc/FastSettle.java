package org.fencekit.store.jdbc;

import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Instant;
import org.fencekit.store.ClaimId;
import org.fencekit.store.OrderRecord;
import org.fencekit.store.OrderStatus;
import org.fencekit.store.WriteResult;
import org.fencekit.store.spi.OrderStateMachine;
import org.fencekit.store.spi.WriteRequest;

/**
 * The check of a single-statement settle against the state machine, for the SQL stores' fast paths:
 * given the row a conditional {@code UPDATE} wrote for the current owner's complete, fail or
 * extend, the machine decides again on the row's pre-image as far as its Written branch reads it,
 * and its answer is the call's; a row other than the machine's record is a drift between the SQL
 * and the machine (a bug), thrown as {@link IllegalStateException}, never answered.
 */
public final class FastSettle {

  private FastSettle() {}

  /**
   * The machine's answer for a settle a single statement wrote as {@code written} at {@code now}.
   *
   * @param backend the store's name, for the message
   * @throws IllegalStateException if the machine's record is not exactly {@code written}
   */
  public static WriteResult decided(
      String backend, OrderRecord written, WriteRequest request, Instant now) {
    OrderStateMachine.WriteDecision decision =
        OrderStateMachine.write(preImage(written, request), request, now);
    if (!(decision.result() instanceof WriteResult.Written) || !written.equals(decision.next())) {
      throw drifted(backend, request.operation(), written, decision.next());
    }
    return decision.result();
  }

  /**
   * Binds the parameters of a dialect's complete-fast.sql, which every dialect takes in this order:
   * 1 provider_order_id, 2 item_payload, 3 settled_fence, 4 settled_nonce (the token), 5 updated_at
   * (now), 6 session_id, 7 and 8 the token's fence and nonce.
   */
  public static void bindComplete(
      PreparedStatement statement, WriteRequest.Complete complete, Instant now)
      throws SQLException {
    ClaimId claimId = complete.claimId();
    statement.setString(1, complete.item().providerOrderId());
    statement.setString(2, complete.item().payload());
    statement.setLong(3, claimId.fence());
    statement.setString(4, claimId.nonce());
    statement.setLong(5, now.toEpochMilli());
    statement.setString(6, complete.sessionId());
    statement.setLong(7, claimId.fence());
    statement.setString(8, claimId.nonce());
  }

  /**
   * The order before a settle as far as the machine's Written branch reads it: the columns the
   * statement kept, and the token that matched as the current claim. What the statement overwrote
   * and the branch does not read stands in as it is now: for a complete or fail the claim's times
   * (the call's time) and status (PENDING, as under any claim), no item and no settledBy (the WHERE
   * clause ruled out a replay), and for a fail one failure fewer (no failedSince if none is left);
   * for an extend the lease and updatedAt.
   */
  static OrderRecord preImage(OrderRecord written, WriteRequest request) {
    if (request instanceof WriteRequest.Extend) {
      return written;
    }
    Instant at = written.updatedAt();
    boolean fail = request instanceof WriteRequest.Fail;
    String lastError = fail ? null : written.lastError();
    // a fail counted itself: before it, one failure fewer, and no failedSince if it was the first
    int failures = fail ? written.failures() - 1 : written.failures();
    Instant failedSince = failures == 0 ? null : written.failedSince();
    return new OrderRecord(
        written.snapshot(),
        OrderStatus.PENDING,
        null,
        lastError,
        request.claimId(),
        at,
        at,
        written.fence(),
        null,
        at,
        Math.max(failures, 0),
        failedSince);
  }

  /** The failure when a single statement wrote other than the machine's record. */
  public static IllegalStateException drifted(
      String backend, String operation, OrderRecord written, OrderRecord machine) {
    return new IllegalStateException(
        backend
            + " store: the single-statement "
            + operation
            + " of order '"
            + written.sessionId()
            + "' wrote "
            + written
            + " but the state machine's"
            + " record is "
            + machine
            + ": the fast path's SQL and OrderStateMachine disagree, which"
            + " is a bug in fencekit; build the store with singleStatementFastPath(false) and report"
            + " it");
  }
}
