package org.fencekit.store.postgres;

import java.time.Clock;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.atomic.LongAdder;
import org.fencekit.store.ClaimId;
import org.fencekit.store.ClaimRequest;
import org.fencekit.store.ClaimResult;
import org.fencekit.store.OrderRecord;
import org.fencekit.store.OrderStateMachine;
import org.fencekit.store.OrderStatus;
import org.fencekit.store.WriteRequest;
import org.fencekit.store.WriteResult;

/**
 * The single-statement fast path of {@link PostgresOrderStore}: the common cases of a claim (a
 * first claim, a re-claim of an order nobody holds) and of a settle (the current owner's
 * complete, fail or extend) decided by one auto-commit statement, one round trip, with the
 * locking transaction ({@link org.fencekit.store.FencedOrderStore}) deciding everything else.
 *
 * <p>Why this decides exactly as {@link OrderStateMachine} does:
 * <ul>
 *   <li>each statement's WHERE (and ON CONFLICT) clause is the machine's condition for the one
 *       branch it takes, evaluated by PostgreSQL on the newest committed row (an UPDATE under
 *       READ COMMITTED re-checks a row changed while it waited for it), and the statement writes
 *       and commits that row atomically; where the condition does not hold it writes nothing and
 *       returns no row, and the call is a <em>miss</em>;
 *   <li>the record the statement writes is the machine's: a first claim inserts the record the
 *       machine built; every other statement writes only columns whose new value the machine's
 *       branch takes from the request and the time alone (status, item, error, claim, lease,
 *       settledBy, updatedAt; the fence + 1 of a re-claim), and keeps the rest;
 *   <li>after a hit, the machine decides again on the row's pre-image as far as its branch reads
 *       it, rebuilt from the row returned (the columns the statement kept, the token that matched,
 *       the fence before a re-claim), and the result is the machine's; if the machine's record
 *       is not exactly the row written, the call throws {@link IllegalStateException}: the SQL
 *       and the machine have drifted apart, which is a bug;
 *   <li>a miss wrote nothing, so deciding again in the locking transaction is a new decision on
 *       the order as it is then: replay, superseded (and the orphan of a superseded complete),
 *       unknown order, InFlight, Provisioned and a first claim that lost the creation race all
 *       go there.
 * </ul>
 * The clock is read once per statement, in Java, and travels as a parameter.
 */
final class FastPath {

  private final PostgresStorage storage;
  private final Clock clock;
  private final Counter claims = new Counter();
  private final Counter completes = new Counter();
  private final Counter fails = new Counter();
  private final Counter extensions = new Counter();
  private final LongAdder reclaims = new LongAdder();

  FastPath(PostgresStorage storage, Clock clock) {
    this.storage = storage;
    this.clock = clock;
  }

  /**
   * The claim decided by a single statement, or {@code null} on a miss (the machine would answer
   * Provisioned or InFlight). A first claim is insert-order.sql alone; when the order exists,
   * reclaim-fast.sql takes it over if nobody holds it.
   */
  ClaimResult claim(ClaimRequest request) {
    Instant now = OrderStateMachine.now(clock);
    String nonce = ClaimId.newNonce();
    OrderStateMachine.ClaimDecision first = OrderStateMachine.claim(null, request, now, nonce);
    if (storage.insertFast(first.next())) {
      claims.hits.increment();
      return first.result();
    }
    Optional<OrderRecord> row = storage.reclaimFast(first.next(), now);
    if (row.isEmpty()) {
      claims.misses.increment();
      return null;
    }
    OrderRecord written = row.get();
    // the order was not PROVISIONED and held no live lease, which the machine treats alike
    // whatever the status and the lapsed claim were: FAILED with no claim stands in for them
    OrderRecord before = new OrderRecord(written.snapshot(), OrderStatus.FAILED, null,
        written.lastError(), null, null, null, written.fence() - 1, written.settledBy(),
        written.updatedAt());
    OrderStateMachine.ClaimDecision decision = OrderStateMachine.claim(before, request, now, nonce);
    if (!(decision.result() instanceof ClaimResult.Claimed) || !written.equals(decision.next())) {
      throw drifted("claim", written, decision.next());
    }
    claims.hits.increment();
    reclaims.increment();
    return decision.result();
  }

  /** How many claims reclaim-fast.sql decided (a subset of the claim hits). For tests. */
  long reclaims() {
    return reclaims.sum();
  }

  /**
   * The write decided by complete-fast.sql, fail-fast.sql or extend-fast.sql, or {@code null} on
   * a miss (superseded, replay, unknown order).
   */
  WriteResult write(WriteRequest request) {
    Counter counter = counter(request);
    Instant now = OrderStateMachine.now(clock);
    Optional<OrderRecord> row = storage.settleFast(request, now);
    if (row.isEmpty()) {
      counter.misses.increment();
      return null;
    }
    OrderRecord written = row.get();
    OrderStateMachine.WriteDecision decision =
        OrderStateMachine.write(preImage(written, request), request, now);
    if (!(decision.result() instanceof WriteResult.Written) || !written.equals(decision.next())) {
      throw drifted(request.operation(), written, decision.next());
    }
    counter.hits.increment();
    return decision.result();
  }

  /**
   * The order before a settle as far as the machine's Written branch reads it: the columns the
   * statement kept, and the token that matched as the current claim. What the statement
   * overwrote and the branch does not read stands in as it is now: for a complete or fail the
   * claim's times (the call's time) and status (PENDING, as under any claim), no item and no
   * settledBy (the WHERE clause ruled out a replay); for an extend the lease and updatedAt.
   */
  private static OrderRecord preImage(OrderRecord written, WriteRequest request) {
    if (request instanceof WriteRequest.Extend) {
      return written;
    }
    Instant at = written.updatedAt();
    String lastError = request instanceof WriteRequest.Complete ? written.lastError() : null;
    return new OrderRecord(written.snapshot(), OrderStatus.PENDING, null, lastError,
        request.claimId(), at, at, written.fence(), null, at);
  }

  private IllegalStateException drifted(String operation, OrderRecord written, OrderRecord machine) {
    return new IllegalStateException("postgres store: the single-statement " + operation
        + " of order '" + written.sessionId() + "' wrote " + written + " but the state machine's"
        + " record is " + machine + ": the fast path's SQL and OrderStateMachine disagree, which"
        + " is a bug in fencekit; build the store with singleStatementFastPath(false) and report"
        + " it");
  }

  private Counter counter(WriteRequest request) {
    if (request instanceof WriteRequest.Complete) {
      return completes;
    }
    return request instanceof WriteRequest.Fail ? fails : extensions;
  }

  /** How many calls of {@code operation} the single statement decided. For tests. */
  long hits(String operation) {
    return counter(operation).hits.sum();
  }

  /** How many calls of {@code operation} went on to the locking transaction. For tests. */
  long misses(String operation) {
    return counter(operation).misses.sum();
  }

  private Counter counter(String operation) {
    switch (operation) {
      case "claim":
        return claims;
      case "complete":
        return completes;
      case "fail":
        return fails;
      case "extend":
        return extensions;
      default:
        throw new IllegalArgumentException("operation must be claim, complete, fail or extend, got '"
            + operation + "'");
    }
  }

  /** Hits and misses of one operation. */
  private static final class Counter {
    final LongAdder hits = new LongAdder();
    final LongAdder misses = new LongAdder();
  }
}
