package org.fencekit.fulfilment.scenarios;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Supplier;
import org.fencekit.store.ClaimId;
import org.fencekit.store.ClaimResult;
import org.fencekit.store.Item;
import org.fencekit.store.OrderRecord;
import org.fencekit.store.OrderSnapshot;
import org.fencekit.store.OrderStore;
import org.fencekit.store.Orphan;
import org.fencekit.store.StoreUnavailableException;
import org.fencekit.store.WriteResult;

/**
 * The run's store as one handler instance sees it: every call is recorded in the timeline and in a
 * call log the checks read, and the kit can take it down (the network between this instance and the
 * store fails) or cut it off for good (the instance crashed). Closing it does nothing: the run owns
 * the store.
 */
final class InstanceStore implements OrderStore {

  /**
   * One call the instance sent: what, with which token, when (on the run's clock), whether its
   * outcome was unknown, and what it answered ({@code Claimed}, {@code Written}, {@code
   * Superseded}, ...; {@code null} if it threw or could not be sent).
   */
  record Call(
      String operation,
      String sessionId,
      ClaimId claimId,
      Instant at,
      boolean outcomeUnknown,
      String answer) {

    /** Whether it granted or renewed the lease: a claim answered Claimed, an extend Written. */
    boolean leased() {
      return "Claimed".equals(answer) || (operation.equals("extend") && "Written".equals(answer));
    }
  }

  private final OrderStore store;
  private final Instance instance;
  private final ScenarioRun run;
  private final List<Call> calls = new ArrayList<>();
  private boolean down;
  private String downFrom;
  private boolean firstLands;
  private boolean crashed;

  InstanceStore(OrderStore store, Instance instance, ScenarioRun run) {
    this.store = store;
    this.instance = instance;
    this.run = run;
  }

  /** From the next {@code operation} on, every call fails; the first lands if {@code lands}. */
  synchronized void downFrom(String operation, boolean lands) {
    downFrom = operation;
    firstLands = lands;
  }

  /** Every call fails from now on, until {@link #up()}. */
  synchronized void down() {
    down = true;
  }

  /** Calls reach the store again. */
  synchronized void up() {
    down = false;
    downFrom = null;
  }

  /** The instance is dead: any call it still makes reaches nothing. */
  synchronized void crash() {
    crashed = true;
  }

  synchronized List<Call> calls() {
    return List.copyOf(calls);
  }

  @Override
  public ClaimResult claim(OrderSnapshot snapshot, Duration lease) {
    return write(
        "claim",
        snapshot.sessionId(),
        null,
        () -> store.claim(snapshot, lease),
        result -> describe(result));
  }

  @Override
  public WriteResult complete(String sessionId, ClaimId claimId, Item item) {
    return write(
        "complete",
        sessionId,
        claimId,
        () -> store.complete(sessionId, claimId, item),
        result -> "with " + item.providerOrderId() + ": " + describe(result));
  }

  @Override
  public WriteResult fail(String sessionId, ClaimId claimId, String error) {
    return write(
        "fail",
        sessionId,
        claimId,
        () -> store.fail(sessionId, claimId, error),
        result -> "'" + shorten(error) + "': " + describe(result));
  }

  @Override
  public WriteResult extend(String sessionId, ClaimId claimId, Duration lease) {
    return write(
        "extend",
        sessionId,
        claimId,
        () -> store.extend(sessionId, claimId, lease),
        result -> describe(result));
  }

  @Override
  public Optional<OrderRecord> get(String sessionId) {
    reachable("get", sessionId, null, false);
    return store.get(sessionId);
  }

  @Override
  public List<Orphan> orphans(String sessionId) {
    reachable("orphans", sessionId, null, false);
    return store.orphans(sessionId);
  }

  @Override
  public void close() {}

  @Override
  public String toString() {
    return store.toString();
  }

  private <T> T write(
      String operation,
      String sessionId,
      ClaimId claimId,
      Supplier<T> call,
      Function<T, String> describe) {
    Instant at = run.clock().instant();
    boolean landsThenFails = reachable(operation, sessionId, claimId, true);
    String what =
        "store."
            + operation
            + "("
            + run.label(sessionId)
            + (claimId == null ? "" : ", " + shortForm(claimId));
    T result;
    try {
      result = call.get();
    } catch (RuntimeException e) {
      record(
          operation,
          sessionId,
          claimId,
          at,
          e instanceof StoreUnavailableException u && u.outcomeUnknown(),
          null);
      run.timeline().add(instance.name(), what + ") threw " + e);
      throw e;
    }
    if (landsThenFails) {
      record(operation, sessionId, claimId, at, true, null);
      run.timeline()
          .add(
              instance.name(),
              what + ") landed (" + describe.apply(result) + "), then the answer was lost");
      throw unavailable(operation, sessionId, true, "the answer was lost on the way back");
    }
    record(operation, sessionId, claimId, at, false, result.getClass().getSimpleName());
    run.timeline().add(instance.name(), what + ") " + describe.apply(result));
    return result;
  }

  private synchronized void record(
      String operation,
      String sessionId,
      ClaimId claimId,
      Instant at,
      boolean unknown,
      String answer) {
    calls.add(new Call(operation, sessionId, claimId, at, unknown, answer));
  }

  /**
   * Throws if the instance cannot reach the store; for a write that takes the store down and lands
   * first, returns true (the caller then performs it and throws after).
   */
  private boolean reachable(String operation, String sessionId, ClaimId claimId, boolean write) {
    boolean landsThenFails = false;
    synchronized (this) {
      if (crashed) {
        throw new ScenarioRun.RunEnded();
      }
      if (!down && operation.equals(downFrom)) {
        down = true;
        downFrom = null;
        landsThenFails = firstLands;
      } else if (!down) {
        return false;
      }
    }
    if (landsThenFails) {
      return true;
    }
    record(operation, sessionId, claimId, run.clock().instant(), write, null);
    run.timeline()
        .add(instance.name(), "store." + operation + "(" + run.label(sessionId) + ") unreachable");
    throw unavailable(operation, sessionId, write, "the kit cut this instance off from the store");
  }

  private StoreUnavailableException unavailable(
      String operation, String sessionId, boolean unknown, String detail) {
    return new StoreUnavailableException(
        "scenario-kit", operation, sessionId, unknown, detail, null);
  }

  private String describe(Object result) {
    if (result instanceof ClaimResult.Claimed claimed) {
      return "Claimed "
          + shortForm(claimed.claimId())
          + " until +"
          + run.sinceStart(claimed.record().leaseExpiresAt());
    }
    if (result instanceof ClaimResult claim) {
      return claim.getClass().getSimpleName() + " (" + claim.record().status() + ")";
    }
    WriteResult write = (WriteResult) result;
    return write.getClass().getSimpleName() + " (" + write.record().status() + ")";
  }

  /** A token as the timeline shows it: the fence and the nonce's first 8 digits. */
  static String shortForm(ClaimId claimId) {
    return claimId.fence() + ":" + claimId.nonce().substring(0, 8);
  }

  private static String shorten(String text) {
    return text.length() <= 60 ? text : text.substring(0, 57) + "...";
  }
}
