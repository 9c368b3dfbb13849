package org.fencekit.webhook;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import org.fencekit.store.OrderSnapshot;

/**
 * The default {@link SessionMapping}: the session's {@code id}, {@code amount_total}, {@code
 * currency} and {@code customer_details.email}, with the product and quantity from the session's
 * metadata keys {@code product_id} and {@code quantity} (1 when absent), as a Checkout session
 * created with {@code metadata[product_id]=...} carries them.
 *
 * <p>Bounds, each refused naming the field and quoting at most 16 characters of it: the session id
 * 1 to 255 printable ASCII characters without spaces; the product id 1 to 255 characters without
 * control characters; the email at most 320; the quantity 1 to {@value #MAX_QUANTITY} and the
 * amount 0 to 999,999,999,999 (minor units), each in ASCII digits only (no sign, space, fraction,
 * exponent or other script's digits).
 */
public final class MetadataMapping implements SessionMapping {

  /** The metadata key naming the product. */
  public static final String PRODUCT_KEY = "product_id";

  /** The metadata key holding the quantity. */
  public static final String QUANTITY_KEY = "quantity";

  /** The largest quantity one session may order. */
  public static final int MAX_QUANTITY = 1_000;

  /** The largest amount_total read, in minor units. */
  static final long MAX_AMOUNT = 999_999_999_999L;

  @Override
  public OrderSnapshot snapshot(JsonObject session) {
    String sessionId = string(session, "id");
    if (sessionId == null) {
      throw new IllegalArgumentException("the session has no id");
    }
    Fields.id("the session's id", sessionId);
    JsonObject metadata = object(session, "metadata");
    String product = metadata == null ? null : string(metadata, PRODUCT_KEY);
    if (product == null) {
      throw new IllegalArgumentException(
          ("session %s has no metadata.%s: create the Checkout session with metadata[%s], or plug"
                  + " in a SessionMapping that finds the product elsewhere")
              .formatted(sessionId, PRODUCT_KEY, PRODUCT_KEY));
    }
    Fields.text("metadata." + PRODUCT_KEY, product, Fields.MAX_ID_LENGTH);
    String quantityText = metadata == null ? null : string(metadata, QUANTITY_KEY);
    int quantity =
        quantityText == null
            ? 1
            : (int) Fields.number("metadata." + QUANTITY_KEY, quantityText, 1, MAX_QUANTITY);
    String amount = string(session, "amount_total");
    if (amount == null) {
      throw new IllegalArgumentException("session " + sessionId + " has no amount_total");
    }
    long amountTotal = Fields.number("amount_total", amount, 0, MAX_AMOUNT);
    JsonObject customer = object(session, "customer_details");
    String email = customer == null ? null : string(customer, "email");
    if (email != null) {
      Fields.text("customer_details.email", email, Fields.MAX_EMAIL_LENGTH);
    }
    String currency = string(session, "currency");
    if (currency != null) {
      Fields.text("currency", currency, 3);
    }
    return new OrderSnapshot(sessionId, product, quantity, email, amountTotal, currency);
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
