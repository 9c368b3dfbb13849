package org.fencekit.fulfilment;

import java.util.Arrays;
import java.util.Collections;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Collectors;
import org.fencekit.store.OrderField;
import org.fencekit.store.OrderRecord;

/**
 * What {@link FulfilmentHandler#handle} did with one delivery, and what to answer the webhook
 * ({@link #httpStatus()}: 2xx tells Stripe to stop, anything else makes it retry later). Every
 * answer is decided in one place, {@link Kind}.
 */
public sealed interface FulfilmentOutcome {

  /** The kind of outcome, which fixes the HTTP status. */
  default Kind kind() {
    return Kind.of(this);
  }

  /** One line saying what happened, for the webhook's answer body and the logs. */
  String reason();

  /** The status to answer the webhook with. */
  default int httpStatus() {
    return kind().httpStatus();
  }

  /**
   * Every kind of outcome, the record that carries it and the HTTP status it answers: the one table
   * of answers.
   */
  enum Kind {
    /** Claimed, bought, recorded: 200. */
    FULFILLED(200, Fulfilled.class),
    /** Already provisioned: a duplicate delivery, nothing bought: 200. */
    DUPLICATE(200, Duplicate.class),
    /** Another attempt holds a live lease: 409, so Stripe retries later. */
    IN_FLIGHT(409, InFlight.class),
    /**
     * The delivery's order differs from the order stored under its session id (product, quantity,
     * amount or currency): nothing bought, nothing changed: 422. Stripe retries it until an
     * operator finds out which order the session id names.
     */
    MISMATCH(422, Mismatch.class),
    /** Checkout completed but unpaid: 200, nothing claimed (the async event will come). */
    AWAITING_PAYMENT(200, AwaitingPayment.class),
    /** The delayed payment failed: 200, nothing bought. */
    PAYMENT_FAILED(200, PaymentFailed.class),
    /** Not a Checkout event this handler acts on: 200. */
    IGNORED(200, Ignored.class),
    /** The provider failed; the order was failed, so a retry may claim it: 500. */
    PROVIDER_FAILED(500, ProviderFailed.class),
    /**
     * This attempt's purchase arrived after another attempt took the order: the store kept it as an
     * orphan and the listener was told: 200 (the order is the other attempt's).
     */
    ORPHANED(200, Orphaned.class),
    /** This attempt's failure arrived after another attempt took the order; harmless: 200. */
    STALE_FAILURE(200, StaleFailure.class),
    /** The store could not be reached (after bounded retries of a settle): 503. */
    STORE_UNAVAILABLE(503, StoreUnavailable.class),
    /** The order vanished from the store while it was being provisioned: 500, so Stripe retries. */
    ORDER_LOST(500, OrderLost.class),
    /**
     * The handler's thread was interrupted (a shutdown) while the provider call ran: 503. The
     * call's result is still recorded when it comes.
     */
    INTERRUPTED(503, Interrupted.class);

    private final int httpStatus;
    private final Class<? extends FulfilmentOutcome> record;

    Kind(int httpStatus, Class<? extends FulfilmentOutcome> record) {
      this.httpStatus = httpStatus;
      this.record = record;
    }

    /** The HTTP status this kind answers. */
    public int httpStatus() {
      return httpStatus;
    }

    /** The record that carries this kind. */
    Class<? extends FulfilmentOutcome> record() {
      return record;
    }

    private static Kind of(FulfilmentOutcome outcome) {
      return Arrays.stream(values())
          .filter(kind -> kind.record.isInstance(outcome))
          .findFirst()
          .orElseThrow(() -> new AssertionError("no kind for " + outcome.getClass().getName()));
    }
  }

  /**
   * Claimed, bought and recorded.
   *
   * @param record the provisioned order
   */
  record Fulfilled(OrderRecord record) implements FulfilmentOutcome {
    /** Checks the record is present. */
    public Fulfilled {
      Objects.requireNonNull(record, "record");
    }

    @Override
    public String reason() {
      return "fulfilled order " + record.sessionId() + " with " + record.item().providerOrderId();
    }
  }

  /**
   * The order was provisioned before: nothing bought.
   *
   * @param record the provisioned order
   */
  record Duplicate(OrderRecord record) implements FulfilmentOutcome {
    /** Checks the record is present. */
    public Duplicate {
      Objects.requireNonNull(record, "record");
    }

    @Override
    public String reason() {
      return "order " + record.sessionId() + " was fulfilled already; nothing bought";
    }
  }

  /**
   * Another attempt holds a live lease on the order.
   *
   * @param record the order with the other attempt's claim
   */
  record InFlight(OrderRecord record) implements FulfilmentOutcome {
    /** Checks the record is present. */
    public InFlight {
      Objects.requireNonNull(record, "record");
    }

    @Override
    public String reason() {
      return "order %s is being fulfilled by another attempt until %s; retry later"
          .formatted(record.sessionId(), record.leaseExpiresAt());
    }
  }

  /**
   * The delivery offered a different order than the one stored under its session id: the store
   * changed nothing and nothing was bought. The reason names the fields that differ, never their
   * values (the operator's listing has them: {@code fencekit-admin orders mismatches}).
   *
   * @param record the order as stored, unchanged
   * @param fields the fields that differ; never empty
   */
  record Mismatch(OrderRecord record, Set<OrderField> fields) implements FulfilmentOutcome {
    /** Checks both are present and at least one field differs; keeps them in declaration order. */
    public Mismatch {
      Objects.requireNonNull(record, "record");
      Objects.requireNonNull(fields, "fields");
      if (fields.isEmpty()) {
        throw new IllegalArgumentException(
            "fields must name at least one differing field; order '"
                + record.sessionId()
                + "' got none");
      }
      fields = Collections.unmodifiableSet(EnumSet.copyOf(fields));
    }

    @Override
    public String reason() {
      return ("order %s differs from the stored order in %s: nothing bought; an operator must find"
              + " out which order the session id names")
          .formatted(quoted(record.sessionId()), keys(fields));
    }

    /** How much of a session id the reason quotes (an id may have 255 characters). */
    private static final int QUOTED_ID_LENGTH = 64;

    /** The session id, cut after {@value #QUOTED_ID_LENGTH} characters (the length follows). */
    private static String quoted(String sessionId) {
      return sessionId.length() <= QUOTED_ID_LENGTH
          ? sessionId
          : sessionId.substring(0, QUOTED_ID_LENGTH) + "… (" + sessionId.length() + " chars)";
    }

    /** The fields' lower-case keys, joined by ", ". */
    private static String keys(Set<OrderField> fields) {
      return fields.stream().map(OrderField::key).collect(Collectors.joining(", "));
    }
  }

  /**
   * Checkout completed without the payment collected yet; nothing claimed.
   *
   * @param sessionId the order
   */
  record AwaitingPayment(String sessionId) implements FulfilmentOutcome {
    /** Checks the session id is present. */
    public AwaitingPayment {
      Objects.requireNonNull(sessionId, "sessionId");
    }

    @Override
    public String reason() {
      return "order " + sessionId + " is not paid yet; waiting for async_payment_succeeded";
    }
  }

  /**
   * The delayed payment failed; nothing bought.
   *
   * @param sessionId the order
   */
  record PaymentFailed(String sessionId) implements FulfilmentOutcome {
    /** Checks the session id is present. */
    public PaymentFailed {
      Objects.requireNonNull(sessionId, "sessionId");
    }

    @Override
    public String reason() {
      return "the payment for order " + sessionId + " failed; nothing bought";
    }
  }

  /**
   * An event type this handler does not act on.
   *
   * @param typeName the event's type
   */
  record Ignored(String typeName) implements FulfilmentOutcome {
    /** Checks the type is present. */
    public Ignored {
      Objects.requireNonNull(typeName, "typeName");
    }

    @Override
    public String reason() {
      return "ignored event type " + typeName;
    }
  }

  /**
   * The provider failed and the order was failed with the error, so the next delivery may claim it;
   * its purchase carries the same idempotency key.
   *
   * @param record the failed order
   * @param nothingBought whether the purchase certainly did not happen
   */
  record ProviderFailed(OrderRecord record, boolean nothingBought) implements FulfilmentOutcome {
    /** Checks the record is present. */
    public ProviderFailed {
      Objects.requireNonNull(record, "record");
    }

    @Override
    public String reason() {
      return "order " + record.sessionId() + " failed: " + record.lastError();
    }
  }

  /**
   * The purchase of an attempt that had lost the order: kept as an orphan and reported.
   *
   * @param report the orphan, both tokens and both provider order ids
   */
  record Orphaned(OrphanReport report) implements FulfilmentOutcome {
    /** Checks the report is present. */
    public Orphaned {
      Objects.requireNonNull(report, "report");
    }

    @Override
    public String reason() {
      return report.describe();
    }
  }

  /**
   * The failure of an attempt that had lost the order: rejected by the fence, nothing changed.
   *
   * @param current the order as it is
   * @param error the failure that was not written
   */
  record StaleFailure(OrderRecord current, String error) implements FulfilmentOutcome {
    /** Checks both fields are present. */
    public StaleFailure {
      Objects.requireNonNull(current, "current");
      Objects.requireNonNull(error, "error");
    }

    @Override
    public String reason() {
      return ("order %s belongs to another attempt (it is %s); this attempt's failure was not"
              + " written: %s")
          .formatted(current.sessionId(), current.status(), error);
    }
  }

  /**
   * The store could not be reached.
   *
   * @param sessionId the order
   * @param operation the store call that failed (claim, complete, fail)
   * @param outcomeUnknown whether that call may have landed
   * @param message the store's message (no credentials)
   */
  record StoreUnavailable(
      String sessionId, String operation, boolean outcomeUnknown, String message)
      implements FulfilmentOutcome {
    /** Checks every field is present. */
    public StoreUnavailable {
      Objects.requireNonNull(sessionId, "sessionId");
      Objects.requireNonNull(operation, "operation");
      Objects.requireNonNull(message, "message");
    }

    @Override
    public String reason() {
      return "the order store is unavailable (%s of order %s, %s); retry later"
          .formatted(operation, sessionId, outcomeUnknown ? "outcome unknown" : "nothing written");
    }
  }

  /**
   * The order disappeared from the store while this attempt provisioned it (a Redis restart without
   * persistence, a restored backup): the next delivery creates it again, and its purchase carries
   * the same idempotency key.
   *
   * @param sessionId the order
   * @param operation the settle that found no order
   */
  record OrderLost(String sessionId, String operation) implements FulfilmentOutcome {
    /** Checks both fields are present. */
    public OrderLost {
      Objects.requireNonNull(sessionId, "sessionId");
      Objects.requireNonNull(operation, "operation");
    }

    @Override
    public String reason() {
      return "order %s vanished from the store before its %s was recorded; retry"
          .formatted(sessionId, operation);
    }
  }

  /**
   * The handler's thread was interrupted while the provider call ran (a shutdown); the call's
   * result is recorded when it comes.
   *
   * @param sessionId the order
   */
  record Interrupted(String sessionId) implements FulfilmentOutcome {
    /** Checks the session id is present. */
    public Interrupted {
      Objects.requireNonNull(sessionId, "sessionId");
    }

    @Override
    public String reason() {
      return "interrupted while provisioning order "
          + sessionId
          + "; the provider call's result will still be recorded; retry later";
    }
  }
}
