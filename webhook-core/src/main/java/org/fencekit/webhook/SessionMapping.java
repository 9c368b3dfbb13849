package org.fencekit.webhook;

import com.google.gson.JsonObject;
import org.fencekit.store.OrderSnapshot;

/**
 * Turns a Checkout session, as Stripe's JSON has it ({@code data.object} of the event), into the
 * order to fulfil. {@link MetadataMapping} is the default; plug in your own where the product and
 * quantity live elsewhere (line items, a price id).
 */
@FunctionalInterface
public interface SessionMapping {

  /**
   * The order the session is for.
   *
   * @param session the {@code checkout.session} object
   * @return the snapshot to claim the order with
   * @throws IllegalArgumentException if the session cannot be mapped (the webhook then answers an
   *     error status, so Stripe retries, and fixing the mapping later still fulfils it)
   */
  OrderSnapshot snapshot(JsonObject session);
}
