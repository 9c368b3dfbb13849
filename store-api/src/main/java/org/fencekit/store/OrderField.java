package org.fencekit.store;

import java.util.Collections;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import org.fencekit.store.spi.Validate;

/**
 * A field of {@link OrderSnapshot} that defines which order a session id names: what was bought,
 * how many, for how much, in which currency. A claim whose snapshot differs from the stored one in
 * any of them is a different order under the same key: it changes nothing and answers {@link
 * ClaimResult.Mismatch}.
 *
 * <p>The customer's e-mail is not one: it is personal data that may be corrected, or arrive
 * differently on a retry, without changing what was bought. The currency is compared ignoring case
 * ("usd" and "USD" are one currency); every other field exactly.
 *
 * <p>{@link #key()} is the field's stable name (lower case, e.g. {@code "product_id"}), the same in
 * every store, version and JVM; {@link #names} and {@link #fromNames} encode a set of fields with
 * it ({@code "product_id,quantity"}), for a column, a log line or an answer.
 */
public enum OrderField {
  /** {@link OrderSnapshot#productId()}. */
  PRODUCT_ID,
  /** {@link OrderSnapshot#quantity()}. */
  QUANTITY,
  /** {@link OrderSnapshot#amountTotal()}. */
  AMOUNT_TOTAL,
  /** {@link OrderSnapshot#currency()}, compared ignoring case. */
  CURRENCY;

  private static final SortedSet<OrderField> NONE = Collections.emptySortedSet();
  private static final String SEPARATOR = ",";

  private final String key = name().toLowerCase(Locale.ROOT);

  /** The field's stable lower-case name: {@code "product_id"}, {@code "amount_total"}. */
  public String key() {
    return key;
  }

  /** Whether this field differs between the two snapshots. */
  public boolean differs(OrderSnapshot stored, OrderSnapshot offered) {
    return switch (this) {
      case PRODUCT_ID -> !stored.productId().equals(offered.productId());
      case QUANTITY -> stored.quantity() != offered.quantity();
      case AMOUNT_TOTAL -> stored.amountTotal() != offered.amountTotal();
      case CURRENCY -> !stored.currency().equalsIgnoreCase(offered.currency());
    };
  }

  /**
   * The fields in which {@code offered} differs from {@code stored}, in declaration order; empty
   * when both name the same order (the e-mail and the session id are not compared).
   */
  public static SortedSet<OrderField> differing(OrderSnapshot stored, OrderSnapshot offered) {
    Validate.notNull("stored", stored);
    Validate.notNull("offered", offered);
    EnumSet<OrderField> found = null;
    for (OrderField field : values()) {
      if (field.differs(stored, offered)) {
        if (found == null) {
          found = EnumSet.noneOf(OrderField.class);
        }
        found.add(field);
      }
    }
    return found == null ? NONE : Collections.unmodifiableSortedSet(new TreeSet<>(found));
  }

  /** An unmodifiable sorted copy of {@code fields}, checking none is null. */
  static SortedSet<OrderField> sorted(String name, Set<OrderField> fields) {
    Validate.notNull(name, fields);
    if (fields.isEmpty()) {
      return NONE;
    }
    EnumSet<OrderField> copy = EnumSet.noneOf(OrderField.class);
    for (OrderField field : fields) { // not contains(null): some sets throw on it
      copy.add(Validate.notNull(name + " element", field));
    }
    return Collections.unmodifiableSortedSet(new TreeSet<>(copy));
  }

  /**
   * The stable encoding of {@code fields}: their {@link #key()}s in declaration order, joined by
   * commas ({@code "product_id,quantity"}); the empty string for no field.
   */
  public static String names(Set<OrderField> fields) {
    StringBuilder text = new StringBuilder();
    for (OrderField field : sorted("fields", fields)) {
      if (!text.isEmpty()) {
        text.append(SEPARATOR);
      }
      text.append(field.key);
    }
    return text.toString();
  }

  /**
   * The fields {@link #names} encoded: lower-case keys joined by commas, each at most once; the
   * empty string for no field.
   *
   * @throws IllegalArgumentException naming the first part that is not a field's key
   */
  public static SortedSet<OrderField> fromNames(String names) {
    Validate.notNull("names", names);
    if (names.isEmpty()) {
      return NONE;
    }
    EnumSet<OrderField> found = EnumSet.noneOf(OrderField.class);
    for (String part : names.split(SEPARATOR, -1)) {
      OrderField field = ofKey(part);
      if (field == null || !found.add(field)) {
        throw new IllegalArgumentException(
            String.format(
                "names %s holds %s, which is %s; expected field keys (%s) joined by '%s', each at"
                    + " most once",
                Validate.quote(names),
                Validate.quote(part),
                field == null ? "no field's key" : "a repeat",
                names(EnumSet.allOf(OrderField.class)),
                SEPARATOR));
      }
    }
    return Collections.unmodifiableSortedSet(new TreeSet<>(found));
  }

  private static OrderField ofKey(String key) {
    for (OrderField field : values()) {
      if (field.key.equals(key)) {
        return field;
      }
    }
    return null;
  }
}
