package org.fencekit.store.postgres;

import java.time.Clock;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.atomic.LongAdder;
import org.fencekit.store.ClaimId;
import org.fencekit.store.ClaimResult;
import org.fencekit.store.OrderRecord;
import org.fencekit.store.OrderStatus;
import org.fencekit.store.WriteResult;
import org.fencekit.store.jdbc.FastSettle;
import org.fencekit.store.spi.ClaimRequest;
import org.fencekit.store.spi.HeldClaims;
import org.fencekit.store.spi.OrderStateMachine;
import org.fencekit.store.spi.WriteRequest;

/**
 * The single-statement fast path of {@link PostgresOrderStore}: a fresh order's first claim, the
 * re-claim of an order that exists, and the current owner's complete, fail or extend, each decided
 * by one auto-commit statement (one round trip), a claim the state machine refuses (Provisioned,
 * InFlight) by the re-claim that wrote nothing and one read, with the locking transaction ({@link
 * org.fencekit.store.spi.FencedOrderStore}) deciding everything else.
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
 *       lease, settledBy, updatedAt) and keeps the rest; a re-claim writes only what the machine's
 *       Claimed branch takes from the request, the time and the fence (status, item, claim, lease,
 *       fence + 1, updatedAt) and keeps the rest;
 *   <li>after a settle or a re-claim, the machine decides again on the row's pre-image as far as
 *       its branch reads it, rebuilt from the row returned (the columns the statement kept and the
 *       token that matched, or the fence before), and the result is the machine's; if the machine's
 *       record is not exactly the row written, the call throws {@link IllegalStateException}: the
 *       SQL and the machine have drifted apart, which is a bug; except for the complete of a claim
 *       this store granted, whose statement returns nothing and whose answer is the machine's write
 *       on the record the claim left ({@link HeldClaims}: while the token is current, that record
 *       is what each write by it starts from, and the WHERE clause checks it is current);
 *   <li>the re-claim's WHERE compares the offered snapshot with the stored one as the machine does
 *       (OrderField), so it never writes over another order; a claim of another order misses;
 *   <li>a claim the re-claim did not write is answered from the order's committed row only where
 *       the machine, given that row and a time read after it, writes and records nothing
 *       (Provisioned, InFlight; never a Mismatch, whose row the locking transaction records with
 *       its answer): that row was the order's state at an instant inside the call and the lease was
 *       live then, so it is the answer a locking read at that instant gives ({@link #claim});
 *   <li>a miss wrote nothing, so deciding again in the locking transaction is a new decision on the
 *       order as it is then: a claim of an order released since the re-claim looked, replay,
 *       superseded (and the orphan of a superseded complete) and unknown order all go there.
 * </ul>
 *
 * The clock is read once per statement, in Java, and travels as a parameter (for a claim answered
 * from a read, it is read again after the read).
 */
final class FastPath {

  /** The nonce of the stand-in claim a re-claim's pre-image holds (its lease has ended). */
  private static final String UNUSED_NONCE = ClaimId.newNonce();

  /** How many orders known to exist are remembered at most; a power of two. */
  static final int EXISTING_SLOTS = 1024;

  private final PostgresStorage storage;
  private final Clock clock;
  private final Counter claims = new Counter();
  private final Counter completes = new Counter();
  private final Counter fails = new Counter();
  private final Counter extensions = new Counter();

  /** The orders as this store's claims left them, for their completes. */
  private final HeldClaims held = new HeldClaims();

  /** How many re-claims a claim of an order that exists sends before the locking transaction. */
  private static final int RECLAIMS = 2;

  /** Session ids whose first-claim insert found the order there, one per slot by hash. */
  private final AtomicReferenceArray<String> existing = new AtomicReferenceArray<>(EXISTING_SLOTS);

  FastPath(PostgresStorage storage, Clock clock) {
    this.storage = storage;
    this.clock = clock;
  }

  /**
   * The claim decided by insert-order.sql or reclaim-fast.sql alone, or {@code null} on a miss.
   *
   * <p>A fresh order's first claim is the insert. A claim of an order that exists (the insert found
   * it, or it is known to exist) is the conditional re-claim, which writes where the machine grants
   * the claim; where it wrote nothing (the order is provisioned, or in flight) the same statement
   * returns the order as its snapshot read it, without its row lock, and where the machine answers
   * that row with no write (Provisioned, or InFlight under a lease still live at a time read after
   * the statement) that is the answer: the row was the order's committed state at an instant inside
   * the call and the lease was live then, which is what a locking read at that instant would have
   * seen. A row the machine would claim (the update saw a newer version, taken since the snapshot)
   * is re-claimed once more, whose snapshot shows the taker's lease; another order's snapshot, or a
   * second such row, goes to the locking transaction. So the callers of an order many fight over
   * hold no row lock to be told to wait, no one queues behind another's transaction, and each is
   * told with one statement. (A re-claim whose misses went to the locking transaction was tried
   * before: the misses queued for the row there and halved such a workload's throughput.)
   *
   * <p>An order whose insert missed is remembered (the last one per slot of {@value
   * #EXISTING_SLOTS}), and a claim for it skips the insert: orders are never deleted, and a wrong
   * guess only costs a round trip either way, never a different answer.
   */
  ClaimResult claim(ClaimRequest request) {
    String sessionId = request.sessionId();
    int slot = sessionId.hashCode() & (EXISTING_SLOTS - 1);
    String nonce = ClaimId.newNonce();
    if (!sessionId.equals(existing.get(slot))) {
      OrderStateMachine.ClaimDecision first =
          OrderStateMachine.claim(null, request, OrderStateMachine.now(clock), nonce);
      if (storage.insertFast(first.next())) {
        claims.hits.increment();
        held.put(first.next());
        return first.result();
      }
      existing.set(slot, sessionId);
    }
    // a second re-claim where the first read the order claimable but found it taken (a rival's
    // claim committed between the statement's snapshot and its update): its snapshot shows the
    // rival's lease, where the locking transaction would have queued for the row
    for (int attempt = 0; attempt < RECLAIMS; attempt++) {
      Instant now = OrderStateMachine.now(clock);
      PostgresStorage.Reclaim reclaim =
          storage.reclaimFast(
              request.snapshot(), nonce, now, OrderStateMachine.leaseEnd(now, request.lease()));
      if (reclaim.written() != null) {
        OrderRecord written = reclaim.written();
        OrderStateMachine.ClaimDecision decision =
            OrderStateMachine.claim(reclaimPreImage(written), request, now, nonce);
        if (!(decision.result() instanceof ClaimResult.Claimed)
            || !written.equals(decision.next())) {
          throw FastSettle.drifted("postgres", "claim", written, decision.next());
        }
        claims.hits.increment();
        held.put(written);
        return decision.result();
      }
      if (reclaim.read() == null) {
        break;
      }
      // the time after the statement's snapshot: a lease live now was live when the row was the
      // order's
      OrderStateMachine.ClaimDecision decision =
          OrderStateMachine.claim(reclaim.read(), request, OrderStateMachine.now(clock), nonce);
      if (decision.next() == null && decision.mismatch() == null) {
        claims.hits.increment();
        return decision.result();
      }
      if (decision.mismatch() != null) {
        break;
      }
    }
    claims.misses.increment();
    return null;
  }

  /**
   * The order before a re-claim as far as the machine's re-claim branch reads it: the columns the
   * statement kept (snapshot, last error, settledBy, failures), the fence one lower, and, for what
   * it overwrote, a claim under that fence whose lease ended at the call's time (the WHERE clause
   * ruled out a live one and a provisioned order).
   */
  private static OrderRecord reclaimPreImage(OrderRecord written) {
    Instant at = written.claimedAt();
    long fence = written.fence() - 1;
    return new OrderRecord(
        written.snapshot(),
        OrderStatus.PENDING,
        null,
        written.lastError(),
        new ClaimId(Math.max(fence, 1), UNUSED_NONCE),
        at,
        at,
        Math.max(fence, 1),
        written.settledBy(),
        at,
        written.failures(),
        written.failedSince());
  }

  /**
   * The write decided by complete-fast.sql, fail-fast.sql or extend-fast.sql, or {@code null} on a
   * miss (superseded, replay, unknown order). The complete of a claim this store granted sends its
   * {@code UPDATE} without {@code RETURNING}, and where it wrote, the answer is the machine's write
   * on the record the claim left ({@link HeldClaims}, which says why that is exact); a fail takes
   * that record too, so no later complete by the token is answered from it.
   */
  WriteResult write(WriteRequest request) {
    Counter counter = counter(request.operation());
    Instant now = OrderStateMachine.now(clock);
    OrderRecord claimed =
        request instanceof WriteRequest.Extend
            ? null
            : held.take(request.sessionId(), request.claimId());
    if (claimed != null && request instanceof WriteRequest.Complete complete) {
      if (!storage.completeAlone(complete, now)) {
        counter.misses.increment();
        return null;
      }
      counter.hits.increment();
      return OrderStateMachine.write(claimed, request, now).result();
    }
    Optional<OrderRecord> row = storage.settleFast(request, now);
    if (row.isEmpty()) {
      counter.misses.increment();
      return null;
    }
    WriteResult decided = FastSettle.decided("postgres", row.get(), request, now);
    counter.hits.increment();
    return decided;
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
