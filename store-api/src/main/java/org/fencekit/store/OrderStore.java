package org.fencekit.store;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.fencekit.store.spi.Validate;

/**
 * Where orders are claimed and settled, each settling write fenced by the token of its claim.
 *
 * <p>A lease stops two attempts working on an order at once; it does not stop an attempt whose
 * lease ran out from writing late over a newer attempt's result. The token does: every write
 * presents the token its claim returned, and a write whose token is no longer the order's current
 * claim changes nothing and answers {@link WriteResult.Superseded}.
 *
 * <p>Every implementation is safe for many threads; the durable ones also for many processes
 * sharing one database. All lease arithmetic uses the {@link java.time.Clock} the store was built
 * with, at millisecond precision. Bad arguments throw {@link IllegalArgumentException} or {@link
 * NullPointerException} naming the argument before anything reaches the backend. A backend that
 * cannot be reached throws {@link StoreUnavailableException}.
 */
public interface OrderStore extends AutoCloseable {

  /** The longest lease a claim or extend may ask for. */
  Duration MAX_LEASE = Duration.ofHours(24);

  /**
   * Claims the order for one attempt, creating it on first sight.
   *
   * <ul>
   *   <li>no order: {@code Claimed}, a PENDING order with fence 1 and the lease from now;
   *   <li>PROVISIONED: {@code Provisioned}, nothing changes;
   *   <li>PENDING or FAILED with a live lease: {@code InFlight}, nothing changes;
   *   <li>PENDING or FAILED with no claim or an expired lease: {@code Claimed}, fence + 1, a new
   *       nonce, status PENDING, lastError kept.
   * </ul>
   *
   * Before any of these, on an existing order of any status: if the snapshot differs from the
   * stored one in a field of {@link OrderField} (product, quantity, amount, currency ignoring
   * case), it is another order under the same key: {@code Mismatch} naming those fields, nothing
   * changes, and the claim is recorded for the operator ({@link OrderStoreAdmin#mismatches}) in the
   * same atomic step. Otherwise the first snapshot is kept: a later one of the same order (its
   * e-mail corrected, its currency in another case) does not overwrite it.
   *
   * @param snapshot what the Checkout session says
   * @param lease how long the claim holds off other attempts; at least 1 ms, at most 24 h
   * @throws StoreUnavailableException if the backend fails; the claim may then have landed
   */
  ClaimResult claim(OrderSnapshot snapshot, Duration lease);

  /**
   * Settles the order as provisioned with what the provider delivered.
   *
   * <p>{@code Written} if {@code claimId} is the current claim (the lease may have run out, if
   * nobody took over), or a replay of the complete that settled the order with this token and an
   * equal item. Otherwise {@code Superseded}, nothing changes, and the item is recorded as an
   * {@link Orphan} (once per claimId and providerOrderId) in the same atomic step.
   *
   * @throws UnknownOrderException if the order was never claimed
   * @throws StoreUnavailableException if the backend fails; the outcome is then unknown, and
   *     retrying with the same token and item is safe
   */
  WriteResult complete(String sessionId, ClaimId claimId, Item item);

  /**
   * Settles the order as failed, so the next attempt may claim it.
   *
   * <p>{@code Written} if {@code claimId} is the current claim, or a replay of the fail that
   * settled the order with this token and an equal error while it is still FAILED. Otherwise {@code
   * Superseded} and nothing changes.
   *
   * @param error what went wrong; non-blank, at most {@value Validate#MAX_ERROR_LENGTH} characters
   * @throws UnknownOrderException if the order was never claimed
   * @throws StoreUnavailableException if the backend fails; the outcome is then unknown, and
   *     retrying with the same token and error is safe
   */
  WriteResult fail(String sessionId, ClaimId claimId, String error);

  /**
   * Extends the current claim's lease to {@code now + lease} (a heartbeat from a slow attempt).
   *
   * <p>{@code Written} if {@code claimId} is the current claim, even if its lease had run out and
   * nobody took over; otherwise {@code Superseded} and nothing changes.
   *
   * @throws UnknownOrderException if the order was never claimed
   * @throws StoreUnavailableException if the backend fails; the outcome is then unknown
   */
  WriteResult extend(String sessionId, ClaimId claimId, Duration lease);

  /** The order, or empty if it was never claimed. */
  Optional<OrderRecord> get(String sessionId);

  /** The items superseded attempts bought for this order, oldest first; empty if none. */
  List<Orphan> orphans(String sessionId);

  /** Releases the store's connections. Idempotent. */
  @Override
  void close();
}
