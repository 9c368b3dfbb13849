package org.fencekit.fulfilment.scenarios.http;

import java.util.regex.Pattern;

/**
 * Hides signing secrets in everything the runner prints or writes: the runner's own secret wherever
 * it appears, and anything shaped like a Stripe signing secret ({@code whsec_...}), such as a
 * misspelt option's value echoed in a usage error.
 */
final class Redactor {

  private static final Pattern SECRET_SHAPE = Pattern.compile("whsec_[A-Za-z0-9_+/=-]*");

  private final String secret;

  Redactor(String secret) {
    this.secret = secret == null || secret.isEmpty() ? null : secret;
  }

  /** {@code text} with every secret replaced by {@code <secret>}. */
  String clean(String text) {
    if (text == null) {
      return null;
    }
    String out = secret == null ? text : text.replace(secret, "<secret>");
    return SECRET_SHAPE.matcher(out).replaceAll("<secret>");
  }
}
