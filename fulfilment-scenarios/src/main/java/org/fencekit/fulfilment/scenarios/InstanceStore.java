package org.fencekit.fulfilment.scenarios;

import org.fencekit.history.Call;
import org.fencekit.history.Operation;
import org.fencekit.history.Request;
import org.fencekit.history.RequestStore;
import org.fencekit.store.ClaimResult;
import org.fencekit.store.OrderField;
import org.fencekit.store.StoreUnavailableException;
import org.fencekit.store.WriteResult;

/**
 * The run's store as one handler instance sees it. Every call is recorded in the run's {@link
 * org.fencekit.history.History} with the instance's name as its caller, and every write is shown in
 * the timeline. The kit can take the store down for this instance (the network between them fails:
 * calls are unreachable, or the first lands and only its answer is lost), and a call so cut off is
 * recorded with the {@link StoreUnavailableException} the instance got; or cut it off for good (the
 * instance crashed: its calls reach nothing and are not recorded). Closing it does nothing: the run
 * owns the store.
 */
final class InstanceStore extends RequestStore {

  /** What the kit does to one call. */
  private enum Fault {
    /** The call reaches the store. */
    NONE,
    /** The call never reaches the store. */
    UNREACHABLE,
    /** The call lands in the store and its answer is lost on the way back. */
    ANSWER_LOST
  }

  private final ScenarioRun run;
  private final String instance;
  private boolean down;
  private String downFrom;
  private boolean firstLands;
  private boolean crashed;

  InstanceStore(ScenarioRun run, String instance) {
    this.run = run;
    this.instance = instance;
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

  @Override
  public void close() {}

  @Override
  public String toString() {
    return run.store().toString();
  }

  @Override
  protected Object send(Request request) {
    Fault fault = fault(request.operation());
    Call call = run.history().call(instance, request, () -> reach(request, fault));
    if (fault == Fault.NONE && writes(request.operation())) {
      log(
          what(request)
              + ") "
              + (call.failure() == null
                  ? describe(request, call.result())
                  : "threw " + call.failure()));
    }
    return call.resultOrThrow();
  }

  /** What the kit does to this call; throws if the instance crashed. */
  private synchronized Fault fault(Operation operation) {
    if (crashed) {
      throw new ScenarioRun.RunEnded();
    }
    if (!down && operation.label().equals(downFrom)) {
      down = true;
      downFrom = null;
      return firstLands ? Fault.ANSWER_LOST : Fault.UNREACHABLE;
    }
    return down ? Fault.UNREACHABLE : Fault.NONE;
  }

  private Object reach(Request request, Fault fault) {
    switch (fault) {
      case UNREACHABLE -> {
        log(
            "store."
                + request.operation().label()
                + "("
                + run.report().label(request.sessionId())
                + ") unreachable");
        throw unavailable(
            request, writes(request.operation()), "the kit cut this instance off from the store");
      }
      case ANSWER_LOST -> {
        Object result = request.sendTo(run.store());
        log(
            what(request)
                + ") landed ("
                + describe(request, result)
                + "), then the answer was lost");
        throw unavailable(
            request, writes(request.operation()), "the answer was lost on the way back");
      }
      default -> {
        return request.sendTo(run.store());
      }
    }
  }

  private void log(String what) {
    run.timeline().add(instance, what);
  }

  private static boolean writes(Operation operation) {
    return operation != Operation.GET && operation != Operation.ORPHANS;
  }

  private static StoreUnavailableException unavailable(
      Request request, boolean unknown, String detail) {
    return new StoreUnavailableException(
        "scenario-kit", request.operation().label(), request.sessionId(), unknown, detail, null);
  }

  /** The call as the timeline shows it, up to its closing parenthesis. */
  private String what(Request request) {
    return "store."
        + request.operation().label()
        + "("
        + run.report().label(request.sessionId())
        + (request.claimId() == null ? "" : ", " + RunReport.shortForm(request.claimId()));
  }

  private String describe(Request request, Object result) {
    return switch (request.operation()) {
      case COMPLETE -> "with " + request.item().providerOrderId() + ": " + describe(result);
      case FAIL -> "'" + shorten(request.error()) + "': " + describe(result);
      default -> describe(result);
    };
  }

  private String describe(Object result) {
    if (result instanceof ClaimResult.Claimed claimed) {
      return "Claimed "
          + RunReport.shortForm(claimed.claimId())
          + " until +"
          + run.timeline().sinceStart(claimed.record().leaseExpiresAt());
    }
    if (result instanceof ClaimResult.Mismatch mismatch) {
      return "Mismatch in "
          + OrderField.names(mismatch.fields())
          + " ("
          + mismatch.record().status()
          + ", unchanged)";
    }
    if (result instanceof ClaimResult claim) {
      return claim.getClass().getSimpleName() + " (" + claim.record().status() + ")";
    }
    if (result instanceof WriteResult write) {
      return write.getClass().getSimpleName() + " (" + write.record().status() + ")";
    }
    return "read";
  }

  private static String shorten(String text) {
    return text.length() <= 60 ? text : text.substring(0, 57) + "...";
  }
}
