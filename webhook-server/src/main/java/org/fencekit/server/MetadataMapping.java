package org.fencekit.server;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import org.fencekit.store.OrderSnapshot;

/**
 * The default {@link SessionMapping}: the session's {@code id}, {@code amount_total}, {@code
 * currency} and {@code customer_details.email}, with the product and quantity from the session's
 * metadata keys {@code product_id} and {@code quantity} (1 when absent), as a Checkout session
 * created with {@code metadata[product_id]=...} carries them.
 */
public final class MetadataMapping implements SessionMapping {

  /** The metadata key naming the product. */
  public static final String PRODUCT_KEY = "product_id";

  /** The metadata key holding the quantity. */
  public static final String QUANTITY_KEY = "quantity";

  @Override
  public OrderSnapshot snapshot(JsonObject session) {
    String sessionId = string(session, "id");
    if (sessionId == null) {
      throw new IllegalArgumentException("the session has no id");
    }
    JsonObject metadata = object(session, "metadata");
    String product = metadata == null ? null : string(metadata, PRODUCT_KEY);
    if (product == null) {
      throw new IllegalArgumentException(
          ("session %s has no metadata.%s: create the Checkout session with metadata[%s], or plug"
                  + " in a SessionMapping that finds the product elsewhere")
              .formatted(sessionId, PRODUCT_KEY, PRODUCT_KEY));
    }
    int quantity = 1;
    String quantityText = metadata == null ? null : string(metadata, QUANTITY_KEY);
    if (quantityText != null) {
      try {
        quantity = Integer.parseInt(quantityText.trim());
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(
            "session %s has metadata.%s %s, not a whole number"
                .formatted(sessionId, QUANTITY_KEY, Untrusted.id(quantityText)));
      }
    }
    String amount = string(session, "amount_total");
    if (amount == null) {
      throw new IllegalArgumentException("session " + sessionId + " has no amount_total");
    }
    long amountTotal;
    try {
      amountTotal = Long.parseLong(amount);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "session %s has amount_total %s, not a whole number"
              .formatted(sessionId, Untrusted.id(amount)));
    }
    JsonObject customer = object(session, "customer_details");
    String email = customer == null ? null : string(customer, "email");
    return new OrderSnapshot(
        sessionId, product, quantity, email, amountTotal, string(session, "currency"));
  }

  /** The member as text, or {@code null} if it is absent or JSON null. */
  static String string(JsonObject object, String member) {
    JsonElement element = member(object, member, false);
    return element == null ? null : element.getAsString();
  }

  /** The member as an object, or {@code null} if it is absent or JSON null. */
  static JsonObject object(JsonObject object, String member) {
    JsonElement element = member(object, member, true);
    return element == null ? null : element.getAsJsonObject();
  }

  /** The member, or {@code null} if it is absent or JSON null; refused if not of the kind asked. */
  private static JsonElement member(JsonObject object, String member, boolean anObject) {
    JsonElement element = object.get(member);
    if (element == null || element.isJsonNull()) {
      return null;
    }
    String expected = anObject ? "an object" : "a plain value";
    if (anObject ? !element.isJsonObject() : !element.isJsonPrimitive()) {
      throw new IllegalArgumentException(member + " is not " + expected + " but " + kind(element));
    }
    return element;
  }

  /** What a JSON value is, without quoting it (it may hold a customer's details). */
  private static String kind(JsonElement element) {
    if (element.isJsonObject()) {
      return "an object";
    }
    if (element.isJsonArray()) {
      return "an array";
    }
    return element.getAsJsonPrimitive().isString() ? "a string" : "a number or boolean";
  }

  @Override
  public String toString() {
    return "MetadataMapping[" + PRODUCT_KEY + ", " + QUANTITY_KEY + "]";
  }
}
