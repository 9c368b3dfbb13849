package org.fencekit.bench;

import java.util.Locale;

/**
 * A constant named in tables, messages and {@code --only} by its lower-case name with words joined
 * by '-': {@code postgres-locking} for {@code POSTGRES_LOCKING}. The stores, their raw baselines
 * and the peers are named this way.
 */
interface Labelled {

  /** The constant's name ({@link Enum#name()}). */
  String name();

  /** The one spelling of this constant in tables, messages and options. */
  default String label() {
    return name().toLowerCase(Locale.ROOT).replace('_', '-');
  }
}
