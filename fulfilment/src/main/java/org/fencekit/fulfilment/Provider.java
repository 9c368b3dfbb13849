package org.fencekit.fulfilment;

import org.fencekit.store.Item;

/**
 * Buys the item an order is for: the slow, paid call the handler makes while it owns the order.
 *
 * <p>Implement it over your provider's API, passing {@link Purchase#idempotencyKey()} as the
 * provider's idempotency key (Stripe-style APIs take one in a header). The key is the same for
 * every attempt on one order, so a retry after a crash or a timeout gets back the purchase the
 * first attempt made instead of buying again. A provider without idempotency keys cannot give that
 * guarantee: a crash between its answer and the store's record then buys twice (the handler still
 * reports the second purchase as an orphan when it can).
 *
 * <p>The call runs on a thread of the handler's provider executor and may be interrupted: when the
 * handler learns the order was taken over by another attempt ({@link Ownership#owned()} turns
 * false) and when the call outlives its deadline. Whatever the call returns afterwards is still
 * recorded, so a purchase is never lost.
 */
@FunctionalInterface
public interface Provider {

  /**
   * Buys the item for one order.
   *
   * @param purchase the order, its idempotency key and the attempt's ownership
   * @return what was bought
   * @throws ProviderException if the purchase failed; {@link ProviderException#nothingBought()}
   *     says whether it certainly did not happen
   * @throws InterruptedException if the call was interrupted (the outcome is then unknown)
   */
  Item buy(Purchase purchase) throws ProviderException, InterruptedException;
}
