package org.fencekit.store.postgres;

import java.time.Clock;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReferenceArray;
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
 * The single-statement fast path of {@link PostgresOrderStore}: a fresh order's first claim and the
 * current owner's complete, fail or extend, each decided by one auto-commit statement (one round
 * trip), with the locking transaction ({@link org.fencekit.store.FencedOrderStore}) deciding
 * everything else.
 *
 * <p>Why this decides exactly as {@link OrderStateMachine} does:
 *
 * <ul>
 *   <li>each statement's WHERE (or ON CONFLICT) clause is the machine's condition for the one
 *       branch it takes, evaluated by PostgreSQL on the newest committed row (an UPDATE under READ
 *       COMMITTED re-checks a row changed while it waited for it, and an INSERT waits for a
 *       concurrent insert of the same key), and the statement writes and commits that row
 *       atomically; where the condition does not hold it writes nothing, and the call is a
 *       <em>miss</em>;
 *   <li>the record the statement writes is the machine's: a first claim inserts the record the
 *       machine built for "no order"; a settle writes only columns whose new value the machine's
 *       Written branch takes from the request and the time alone (status, item, error, claim,
 *       lease, settledBy, updatedAt) and keeps the rest;
 *   <li>after a settle, the machine decides again on the row's pre-image as far as its branch reads
 *       it, rebuilt from the row returned (the columns the statement kept and the token that
 *       matched), and the result is the machine's; if the machine's record is not exactly the row
 *       written, the call throws {@link IllegalStateException}: the SQL and the machine have
 *       drifted apart, which is a bug;
 *   <li>a miss wrote nothing, so deciding again in the locking transaction is a new decision on the
 *       order as it is then: a claim on an existing order (Provisioned, InFlight, re-claim),
 *       replay, superseded (and the orphan of a superseded complete) and unknown order all go
 *       there.
 * </ul>
 *
 * The clock is read once per statement, in Java, and travels as a parameter.
 */
final class FastPath {

  /** How many orders known to exist are remembered at most; a power of two. */
  static final int EXISTING_SLOTS = 1024;

  private final PostgresStorage storage;
  private final Clock clock;
  private final Counter claims = new Counter();
  private final Counter completes = new Counter();
  private final Counter fails = new Counter();
  private final Counter extensions = new Counter();

  /** Session ids whose first-claim insert found the order there, one per slot by hash. */
  private final AtomicReferenceArray<String> existing = new AtomicReferenceArray<>(EXISTING_SLOTS);

  FastPath(PostgresStorage storage, Clock clock) {
    this.storage = storage;
    this.clock = clock;
  }

  /**
   * The claim decided by insert-order.sql alone, or {@code null} on a miss: the order exists
   * (whatever the machine would answer: Provisioned, InFlight, or a re-claim), or a concurrent
   * first claim created it first. A re-claim is left to the locking transaction on purpose: as a
   * conditional UPDATE it made every caller of an order many fight over queue for the row and then
   * decide again in the transaction, halving such a workload's throughput. An order whose insert
   * missed is remembered (the last one per slot of {@value #EXISTING_SLOTS}), and a claim for it
   * goes straight to the transaction: orders are never deleted, and a wrong guess only costs a
   * round trip either way, never a different answer.
   */
  ClaimResult claim(ClaimRequest request) {
    String sessionId = request.sessionId();
    int slot = sessionId.hashCode() & (EXISTING_SLOTS - 1);
    if (sessionId.equals(existing.get(slot))) {
      claims.misses.increment(); // known to exist: the insert would miss
      return null;
    }
    OrderStateMachine.ClaimDecision first =
        OrderStateMachine.claim(null, request, OrderStateMachine.now(clock), ClaimId.newNonce());
    if (storage.insertFast(first.next())) {
      claims.hits.increment();
      return first.result();
    }
    existing.set(slot, sessionId);
    claims.misses.increment();
    return null;
  }

  /**
   * The write decided by complete-fast.sql, fail-fast.sql or extend-fast.sql, or {@code null} on a
   * miss (superseded, replay, unknown order).
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
   * statement kept, and the token that matched as the current claim. What the statement overwrote
   * and the branch does not read stands in as it is now: for a complete or fail the claim's times
   * (the call's time) and status (PENDING, as under any claim), no item and no settledBy (the WHERE
   * clause ruled out a replay), and for a fail one failure fewer (no failedSince if none is left);
   * for an extend the lease and updatedAt.
   */
  private static OrderRecord preImage(OrderRecord written, WriteRequest request) {
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

  private IllegalStateException drifted(
      String operation, OrderRecord written, OrderRecord machine) {
    return new IllegalStateException(
        "postgres store: the single-statement "
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

  /**
   * How many calls of {@code operation} went on to the locking transaction (for a claim, also those
   * sent there at once because the order was known to exist). For tests.
   */
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
        throw new IllegalArgumentException(
            "operation must be claim, complete, fail or extend, got '" + operation + "'");
    }
  }

  /** Hits and misses of one operation. */
  private static final class Counter {
    final LongAdder hits = new LongAdder();
    final LongAdder misses = new LongAdder();
  }
}
