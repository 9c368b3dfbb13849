package org.fencekit.store.spi;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.fencekit.store.ClaimId;
import org.fencekit.store.ClaimResult;
import org.fencekit.store.Item;
import org.fencekit.store.OrderRecord;
import org.fencekit.store.OrderSnapshot;
import org.fencekit.store.OrderStore;
import org.fencekit.store.Orphan;
import org.fencekit.store.StoreUnavailableException;
import org.fencekit.store.UnknownOrderException;
import org.fencekit.store.WriteResult;

/**
 * The base of a store that decides with {@link OrderStateMachine} over an {@link Storage}: the
 * {@linkplain org.fencekit.store.spi most of fencekit's stores} extend it, and so can a user's
 * store over another database. A store is its constructor, which hands over its storage and clock,
 * plus what is really its own (a builder, a fast path that overrides {@link #claim(ClaimRequest)}
 * or {@link #write(WriteRequest)} and falls back to {@code super}).
 *
 * <p>Each operation:
 *
 * <ol>
 *   <li>validates every argument (building a {@link ClaimRequest} or {@link WriteRequest}), so bad
 *       input never reaches the storage;
 *   <li>opens one atomic step on the order ({@link Storage#atomically}), which holds the order's
 *       lock;
 *   <li>reads the order and the clock inside that step, so the decision sees the latest write and
 *       the time it is made at (the storage's server time instead, if it reads one: {@link
 *       Storage.LockedOrder#now()});
 *   <li>decides with the state machine: the token presented must equal the current claim, or the
 *       write is superseded;
 *   <li>writes the new record, or for a superseded complete the orphan, or for a claim that offers
 *       another order the mismatch, in the same step; a rejected write changes nothing.
 * </ol>
 *
 * A first claim that loses the race to create the order is decided again against the order the
 * winner created.
 */
public abstract class FencedOrderStore implements OrderStore {

  /** How many times a first claim that lost the creation race is decided again. */
  private static final int CREATE_RACE_RETRIES = 8;

  private final Storage storage;
  private final Clock clock;

  /**
   * @param storage where the orders live; closed by {@link #close()}
   * @param clock the time all lease arithmetic uses
   */
  protected FencedOrderStore(Storage storage, Clock clock) {
    this.storage = Validate.notNull("storage", storage);
    this.clock = Validate.notNull("clock", clock);
  }

  /** Validates the arguments, then decides the claim with {@link #claim(ClaimRequest)}. */
  @Override
  public final ClaimResult claim(OrderSnapshot snapshot, Duration lease) {
    return claim(new ClaimRequest(snapshot, lease));
  }

  /**
   * Decides a validated claim in one atomic step of the storage. A subclass may decide some claims
   * another way first and call this for the rest.
   */
  protected ClaimResult claim(ClaimRequest request) {
    String nonce = ClaimId.newNonce();
    for (int attempt = 0; attempt <= CREATE_RACE_RETRIES; attempt++) {
      ClaimResult result =
          storage.atomically(
              "claim",
              request.sessionId(),
              order -> {
                OrderRecord current = order.current().orElse(null);
                OrderStateMachine.ClaimDecision decision =
                    OrderStateMachine.claim(current, request, now(order), nonce);
                if (decision.mismatch() != null) {
                  order.addMismatch(decision.mismatch());
                } else if (decision.next() != null && current != null) {
                  order.update(decision.next());
                } else if (decision.next() != null && !order.insert(decision.next())) {
                  return null; // another caller created it first: decide again against theirs
                }
                return decision.result();
              });
      if (result != null) {
        return result;
      }
    }
    throw new StoreUnavailableException(
        storage.backend(),
        "claim",
        request.sessionId(),
        false,
        String.format(
            "the order was reported created by another caller %s times but could not be read"
                + " back; check that the storage's insert and read use the same key",
            CREATE_RACE_RETRIES + 1),
        null);
  }

  /** Validates the arguments, then decides the write with {@link #write(WriteRequest)}. */
  @Override
  public final WriteResult complete(String sessionId, ClaimId claimId, Item item) {
    return write(new WriteRequest.Complete(sessionId, claimId, item));
  }

  /** Validates the arguments, then decides the write with {@link #write(WriteRequest)}. */
  @Override
  public final WriteResult fail(String sessionId, ClaimId claimId, String error) {
    return write(new WriteRequest.Fail(sessionId, claimId, error));
  }

  /** Validates the arguments, then decides the write with {@link #write(WriteRequest)}. */
  @Override
  public final WriteResult extend(String sessionId, ClaimId claimId, Duration lease) {
    return write(new WriteRequest.Extend(sessionId, claimId, lease));
  }

  /**
   * Decides a validated complete, fail or extend in one atomic step of the storage. A subclass may
   * decide some writes another way first and call this for the rest.
   */
  protected WriteResult write(WriteRequest request) {
    return storage.atomically(
        request.operation(),
        request.sessionId(),
        order -> {
          OrderRecord current = order.current().orElse(null);
          if (current == null) { // not orElseThrow: its lambda was an allocation per call
            throw new UnknownOrderException(
                storage.backend(), request.operation(), request.sessionId());
          }
          OrderStateMachine.WriteDecision decision =
              OrderStateMachine.write(current, request, now(order));
          if (decision.next() != null) {
            order.update(decision.next());
          }
          if (decision.orphan() != null) {
            order.addOrphan(decision.orphan());
          }
          return decision.result();
        });
  }

  /** The storage's server time read in this step, if it reads one, else the clock's. */
  private Instant now(Storage.LockedOrder order) {
    Optional<Instant> server = order.now();
    // not orElseGet: its lambda, capturing the clock, was an allocation per call
    return server.isPresent() ? server.get() : OrderStateMachine.now(clock);
  }

  @Override
  public final Optional<OrderRecord> get(String sessionId) {
    return storage.read(Validate.sessionId(sessionId));
  }

  @Override
  public final List<Orphan> orphans(String sessionId) {
    return storage.orphans(Validate.sessionId(sessionId));
  }

  /** Closes the storage. */
  @Override
  public void close() {
    storage.close();
  }

  /** The store's class and its backend; stores say more. */
  @Override
  public String toString() {
    return getClass().getSimpleName() + "[" + storage.backend() + "]";
  }
}
