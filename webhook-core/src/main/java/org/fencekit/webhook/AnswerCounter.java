package org.fencekit.webhook;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * Counts the webhook's answers in the application's registry: {@code fencekit.webhook.answers} by
 * status and, for an error, {@code fencekit.webhook.refusals} by its error code, read from the
 * {@link Answer}. Without a registry it counts nothing (the core makes no registry of its own that
 * nothing would read).
 */
final class AnswerCounter {

  private final MeterRegistry registry;

  /** A counter into {@code registry}, or one that counts nothing if it is {@code null}. */
  AnswerCounter(MeterRegistry registry) {
    this.registry = registry;
  }

  /** Counts {@code answer}, and returns it. */
  Answer count(Answer answer) {
    if (registry == null) {
      return answer;
    }
    Counter.builder("fencekit.webhook.answers")
        .description("Answers to the webhook by HTTP status")
        .tag("status", String.valueOf(answer.status()))
        .register(registry)
        .increment();
    if (answer.error() != null) {
      Counter.builder("fencekit.webhook.refusals")
          .description("Error answers to the webhook by error (overloaded, bad_signature, ...)")
          .tag("error", answer.error())
          .register(registry)
          .increment();
    }
    return answer;
  }
}
