package org.fencekit.fulfilment;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import org.fencekit.store.ClaimId;
import org.fencekit.store.Item;
import org.fencekit.store.OrderRecord;
import org.fencekit.store.OrderSnapshot;
import org.fencekit.store.StoreUnavailableException;
import org.fencekit.store.UnknownOrderException;
import org.fencekit.store.WriteResult;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One claimed attempt of a {@link FulfilmentHandler}: its provider call, heartbeats and deadline,
 * then the complete or fail that settles it. Guarded by its own monitor: {@link #knownExpiry}, the
 * scheduled tasks, the call's thread and {@link #finished}.
 */
final class Attempt implements Ownership {

  private static final Logger LOG = LoggerFactory.getLogger(FulfilmentHandler.class);

  private final FulfilmentHandler handler;
  private final OrderSnapshot snapshot;
  private final String sessionId;
  private final ClaimId claimId;
  private final Instant startedAt;
  private final CompletableFuture<Item> call = new CompletableFuture<>();
  private volatile boolean owned = true;
  private Instant knownExpiry;
  private Scheduler.Task heartbeatTask;
  private Scheduler.Task deadlineTask;
  private Thread callThread;
  private boolean finished;
  private volatile String cutOffReason;

  Attempt(FulfilmentHandler handler, OrderSnapshot snapshot, ClaimId claimId, Instant knownExpiry) {
    this.handler = handler;
    this.snapshot = snapshot;
    this.sessionId = snapshot.sessionId();
    this.claimId = claimId;
    this.knownExpiry = knownExpiry;
    this.startedAt = handler.clock.instant();
  }

  @Override
  public ClaimId claimId() {
    return claimId;
  }

  @Override
  public boolean owned() {
    return owned;
  }

  FulfilmentOutcome run() {
    synchronized (this) {
      scheduleHeartbeat();
      scheduleDeadline();
    }
    Purchase purchase = new Purchase(snapshot, Purchase.idempotencyKeyFor(sessionId), this);
    try {
      handler.providerExecutor.execute(() -> call(purchase));
    } catch (RejectedExecutionException e) {
      call.completeExceptionally(
          ProviderException.nothingBought(
              "the handler's provider executor refused the call (" + e.getMessage() + ")"));
    }
    try {
      call.get();
    } catch (InterruptedException e) {
      // Stop waiting, but leave the call's result to be recorded when it comes: completing
      // the future here makes the provider thread take the late path.
      boolean abandoned =
          call.completeExceptionally(
              ProviderException.outcomeUnknown("the handler stopped waiting (interrupted)", e));
      Thread.currentThread().interrupt();
      if (abandoned) {
        finish();
        LOG.warn(
            "order {}: interrupted while the provider call of {} ran; its result will be"
                + " recorded when it comes",
            sessionId,
            claimId);
        return new FulfilmentOutcome.Interrupted(sessionId);
      }
    } catch (ExecutionException e) {
      // the call failed: read as its result below
    }
    finish();
    // The call's result, which is known now.
    Item item;
    try {
      item = call.getNow(null);
    } catch (CompletionException e) {
      Throwable cause = e.getCause();
      return fail(
          cause instanceof ProviderException provided
              ? provided
              : ProviderException.outcomeUnknown(cause.getMessage(), cause),
          /* late= */ false);
    }
    return complete(item);
  }

  /** Runs on a provider thread: the purchase, then hands its result over. */
  private void call(Purchase purchase) {
    synchronized (this) {
      if (finished || call.isDone()) {
        return; // cut off before the call could start: nothing was sent to the provider
      }
      callThread = Thread.currentThread();
    }
    Item item = null;
    ProviderException failure = null;
    long start = System.nanoTime();
    handler.metrics.providerCallStarted();
    try {
      item = handler.provider.buy(purchase);
      if (item == null) {
        failure = ProviderException.outcomeUnknown("the provider returned no item", null);
      }
    } catch (ProviderException e) {
      failure = e;
    } catch (InterruptedException e) {
      failure =
          ProviderException.outcomeUnknown(
              "the provider call was interrupted ("
                  + (cutOffReason != null ? cutOffReason : "the order was taken over")
                  + ")",
              e);
    } catch (RuntimeException e) {
      failure = ProviderException.outcomeUnknown("the provider threw " + e, e);
    } finally {
      synchronized (this) {
        callThread = null;
      }
      Thread.interrupted(); // an interrupt meant for this call must not reach the next task
      handler.metrics.providerCallEnded(
          item != null
              ? "bought"
              : failure != null && failure.nothingBought() ? "refused" : "unknown",
          Duration.ofNanos(System.nanoTime() - start));
    }
    boolean delivered = item != null ? call.complete(item) : call.completeExceptionally(failure);
    if (!delivered) {
      late(item, failure);
    }
  }

  /**
   * The call answered after the webhook's thread stopped waiting: its item is recorded all the
   * same. Its failure is recorded only if the delivery was interrupted: after a cut-off the
   * delivery's thread fails the order itself (outcome unknown), and a second fail of this attempt,
   * with another text, would supersede that one and turn the delivery's answer into a 2xx.
   */
  private void late(Item item, ProviderException failure) {
    try {
      if (item != null) {
        LOG.warn(
            "order {}: the provider call of {} answered after it was cut off, with provider"
                + " order {}; recording it",
            sessionId,
            claimId,
            item.providerOrderId());
        complete(item);
      } else if (cutOffReason != null) {
        LOG.info(
            "order {}: the provider call of {}, cut off ({}), then failed: {}; the delivery"
                + " recorded the cut-off",
            sessionId,
            claimId,
            cutOffReason,
            failure.getMessage());
      } else {
        fail(failure, /* late= */ true);
      }
    } catch (RuntimeException e) {
      LOG.error(
          "order {}: the late answer of {} ({}) could not be recorded ({}); reconcile it by hand",
          sessionId,
          claimId,
          item != null ? "provider order " + item.providerOrderId() : failure.getMessage(),
          e.toString(),
          e);
    }
  }

  private FulfilmentOutcome complete(Item item) {
    WriteResult written;
    try {
      written =
          handler.settle(
              "complete", sessionId, () -> handler.store.complete(sessionId, claimId, item));
    } catch (StoreUnavailableException e) {
      LOG.error(
          "order {}: provider order {} was bought by {} but the store did not record it"
              + " ({} tries, outcome {}); the order is not failed: the next delivery after the"
              + " lease re-claims it and the provider hands back this purchase for the same"
              + " idempotency key",
          sessionId,
          item.providerOrderId(),
          claimId,
          handler.settleAttempts,
          e.outcomeUnknown() ? "unknown" : "nothing written");
      return new FulfilmentOutcome.StoreUnavailable(
          sessionId, "complete", e.outcomeUnknown(), e.getMessage());
    } catch (UnknownOrderException e) {
      LOG.error(
          "order {}: provider order {} was bought by {} but the order is gone from the store;"
              + " the next delivery creates it again and gets this purchase back for the same"
              + " idempotency key",
          sessionId,
          item.providerOrderId(),
          claimId);
      return new FulfilmentOutcome.OrderLost(sessionId, "complete");
    }
    if (written instanceof WriteResult.Superseded superseded) {
      return new FulfilmentOutcome.Orphaned(
          handler.reportOrphan(sessionId, claimId, item, superseded.current()));
    }
    LOG.info(
        "order {}: provisioned by {} with provider order {}",
        sessionId,
        claimId,
        item.providerOrderId());
    return new FulfilmentOutcome.Fulfilled(written.record());
  }

  private FulfilmentOutcome fail(ProviderException failure, boolean late) {
    String error =
        ErrorText.of(
            (failure.nothingBought()
                    ? "provider failed, nothing bought: "
                    : "provider outcome unknown, the retry uses the same idempotency key: ")
                + failure.getMessage(),
            "provider failed");
    WriteResult written;
    try {
      written =
          handler.settle("fail", sessionId, () -> handler.store.fail(sessionId, claimId, error));
    } catch (StoreUnavailableException e) {
      return new FulfilmentOutcome.StoreUnavailable(
          sessionId, "fail", e.outcomeUnknown(), e.getMessage());
    } catch (UnknownOrderException e) {
      LOG.warn("order {}: gone from the store before its failure was recorded", sessionId);
      return new FulfilmentOutcome.OrderLost(sessionId, "fail");
    }
    if (written instanceof WriteResult.Superseded superseded) {
      LOG.info(
          "order {}: the {}failure of {} was superseded (the order is {} under another"
              + " attempt); nothing changed: {}",
          sessionId,
          late ? "late " : "",
          claimId,
          superseded.current().status(),
          error);
      return new FulfilmentOutcome.StaleFailure(superseded.current(), error);
    }
    LOG.warn("order {}: failed by {}: {}", sessionId, claimId, error);
    return new FulfilmentOutcome.ProviderFailed(written.record(), failure.nothingBought());
  }

  /** Stops the heartbeats and the deadline: the call has answered (or was given up on). */
  private synchronized void finish() {
    finished = true;
    if (heartbeatTask != null) {
      heartbeatTask.cancel();
    }
    if (deadlineTask != null) {
      deadlineTask.cancel();
    }
  }

  // Called with the monitor held.
  private void scheduleHeartbeat() {
    heartbeatTask = schedule("heartbeat", handler.heartbeat, this::heartbeat);
  }

  // Called with the monitor held: the call is cut off at the earlier of its timeout and
  // one heartbeat before the lease last renewed runs out.
  private void scheduleDeadline() {
    if (deadlineTask != null) {
      deadlineTask.cancel();
    }
    Instant byTimeout = startedAt.plus(handler.providerTimeout);
    Instant byLease = knownExpiry.minus(handler.heartbeat);
    Instant at = byTimeout.isBefore(byLease) ? byTimeout : byLease;
    String reason =
        at.equals(byTimeout)
            ? "no answer within the provider timeout of " + handler.providerTimeout
            : "no answer before the lease renewed last (until "
                + knownExpiry
                + ") could run out; heartbeats failed";
    Duration delay = Duration.between(handler.clock.instant(), at);
    deadlineTask =
        schedule(
            "provider deadline", delay.isNegative() ? Duration.ZERO : delay, () -> cutOff(reason));
  }

  private Scheduler.Task schedule(String name, Duration delay, Runnable task) {
    try {
      return handler.scheduler.schedule(name, delay, task);
    } catch (RejectedExecutionException e) {
      LOG.warn("order {}: cannot schedule the {} ({}); handler closing?", sessionId, name, e);
      return () -> {};
    }
  }

  private void heartbeat() {
    synchronized (this) {
      if (finished) {
        return;
      }
      heartbeatTask = null;
    }
    Instant sent = handler.clock.instant();
    WriteResult extended;
    try {
      extended =
          handler.storeCall(
              "extend", () -> handler.store.extend(sessionId, claimId, handler.lease));
    } catch (UnknownOrderException e) {
      lose("the order is gone from the store");
      return;
    } catch (RuntimeException e) {
      LOG.warn(
          "order {}: heartbeat of {} failed; the call will be cut off before the lease runs"
              + " out unless a later heartbeat lands: {}",
          sessionId,
          claimId,
          e.toString());
      synchronized (this) {
        if (!finished) {
          scheduleHeartbeat();
        }
      }
      return;
    }
    if (extended instanceof WriteResult.Superseded superseded) {
      OrderRecord current = superseded.current();
      ClaimId holder = current.claimId() != null ? current.claimId() : current.settledBy();
      lose(
          "another attempt took the order over (it is %s under %s)"
              .formatted(current.status(), holder));
      return;
    }
    synchronized (this) {
      if (finished) {
        return;
      }
      Instant renewed = sent.plus(handler.lease);
      knownExpiry = renewed.isAfter(knownExpiry) ? renewed : knownExpiry;
      scheduleDeadline();
      scheduleHeartbeat();
    }
  }

  private void lose(String why) {
    owned = false;
    LOG.warn(
        "order {}: attempt {} no longer owns it: {}; interrupting its provider call, whose"
            + " result will still be recorded",
        sessionId,
        claimId,
        why);
    interrupt();
  }

  private void cutOff(String reason) {
    synchronized (this) {
      if (finished) {
        return;
      }
      deadlineTask = null;
      cutOffReason = reason;
    }
    if (call.completeExceptionally(
        ProviderException.outcomeUnknown(
            "the provider call was cut off: " + reason, new DeadlineExceeded(reason)))) {
      interrupt();
    }
  }

  private synchronized void interrupt() {
    if (callThread != null) {
      callThread.interrupt();
    }
  }

  /** The provider call was cut off by its deadline. */
  private static final class DeadlineExceeded extends Exception {
    private static final long serialVersionUID = 1L;

    DeadlineExceeded(String message) {
      super(message, null, false, false);
    }
  }
}
