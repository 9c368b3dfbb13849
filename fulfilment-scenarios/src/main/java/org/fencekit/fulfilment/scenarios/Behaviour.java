package org.fencekit.fulfilment.scenarios;

import java.util.Objects;

/**
 * What one call to the {@link FakeProvider} does. Calls take behaviours in the order they arrive; a
 * call with none left {@link #succeed() succeeds}.
 *
 * @param kind what happens
 * @param error the failure's message, for the failing kinds
 */
public record Behaviour(Kind kind, String error) {

  /** What a call does. */
  public enum Kind {
    /** Buys (or, for a known idempotency key, hands back the earlier purchase) and answers. */
    SUCCEED,
    /** Refuses: nothing bought ({@code ProviderException.nothingBought}). */
    REFUSE,
    /** Buys, then fails as a timeout would: the caller cannot know it bought. */
    BUY_THEN_TIME_OUT,
    /** Waits until the test releases it with a result; ignores interrupts, as many clients do. */
    HANG,
    /** The calling process dies before anything reaches the provider. */
    CRASH_BEFORE_BUYING,
    /** The provider buys and answers, and the calling process dies before reading the answer. */
    CRASH_AFTER_BUYING
  }

  /** Checks the kind is present. */
  public Behaviour {
    Objects.requireNonNull(kind, "kind");
  }

  /** Buys and answers. */
  public static Behaviour succeed() {
    return new Behaviour(Kind.SUCCEED, null);
  }

  /** Refuses with {@code error}: certainly nothing bought. */
  public static Behaviour refuse(String error) {
    return new Behaviour(Kind.REFUSE, Objects.requireNonNull(error, "error"));
  }

  /** Buys, then times out: the outcome is unknown to the caller. */
  public static Behaviour buyThenTimeOut() {
    return new Behaviour(Kind.BUY_THEN_TIME_OUT, "read timed out");
  }

  /** Hangs until released. */
  public static Behaviour hang() {
    return new Behaviour(Kind.HANG, null);
  }

  /** The caller crashes before the call reaches the provider. */
  public static Behaviour crashBeforeBuying() {
    return new Behaviour(Kind.CRASH_BEFORE_BUYING, null);
  }

  /** The provider buys; the caller crashes before it can record the answer. */
  public static Behaviour crashAfterBuying() {
    return new Behaviour(Kind.CRASH_AFTER_BUYING, null);
  }

  /** The Java expression that makes this behaviour, for replays. */
  String java() {
    return switch (kind) {
      case SUCCEED -> "Behaviour.succeed()";
      case REFUSE -> "Behaviour.refuse(" + Replay.quote(error) + ")";
      case BUY_THEN_TIME_OUT -> "Behaviour.buyThenTimeOut()";
      case HANG -> "Behaviour.hang()";
      case CRASH_BEFORE_BUYING -> "Behaviour.crashBeforeBuying()";
      case CRASH_AFTER_BUYING -> "Behaviour.crashAfterBuying()";
    };
  }
}
