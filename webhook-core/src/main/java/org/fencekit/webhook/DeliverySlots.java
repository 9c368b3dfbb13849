package org.fencekit.webhook;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * The delivery slots: a pool of its own that runs deliveries and landings, so the HTTP server's
 * threads only read, check and answer. A piece of work that waits for a slot longer than the queue
 * time is answered without running; after {@link #drain()} none starts, and {@link #awaitIdle}
 * waits for those in flight.
 */
final class DeliverySlots implements AutoCloseable {

  private final Duration queueTime;
  private final ThreadPoolExecutor pool;
  private final ScheduledExecutorService timer;
  private final AtomicInteger inFlight = new AtomicInteger();
  private final Object idle = new Object();
  private volatile boolean draining;

  /**
   * @param slots pieces of work run at once
   * @param queueTime how long one may wait for a slot
   */
  DeliverySlots(int slots, Duration queueTime) {
    this.queueTime = queueTime;
    this.pool =
        new ThreadPoolExecutor(
            slots,
            slots,
            60,
            TimeUnit.SECONDS,
            new LinkedBlockingQueue<>(1024),
            daemons("fencekit-delivery-"));
    this.timer = Executors.newSingleThreadScheduledExecutor(daemons("fencekit-queue-"));
  }

  /** Numbered daemon threads: none of fencekit's threads keeps the JVM up. */
  static ThreadFactory daemons(String prefix) {
    AtomicInteger number = new AtomicInteger();
    return runnable -> {
      Thread thread = new Thread(runnable, prefix + number.incrementAndGet());
      thread.setDaemon(true);
      return thread;
    };
  }

  /**
   * Runs {@code work} in a slot; answers {@code overloaded} instead if no slot frees up within the
   * queue time, and {@code shuttingDown} if draining began before it ran or the slots are closed.
   */
  CompletableFuture<Answer> run(
      Supplier<Answer> work, Supplier<Answer> overloaded, Supplier<Answer> shuttingDown) {
    CompletableFuture<Answer> answered = new CompletableFuture<>();
    AtomicBoolean taken = new AtomicBoolean();
    inFlight.incrementAndGet();
    Runnable delivery =
        () -> {
          if (!taken.compareAndSet(false, true)) {
            return;
          }
          try {
            answered.complete(draining ? shuttingDown.get() : work.get());
          } catch (RuntimeException | Error e) {
            answered.completeExceptionally(e);
            throw e;
          } finally {
            done();
          }
        };
    try {
      pool.execute(delivery);
    } catch (RejectedExecutionException e) {
      abandon(taken, answered, draining ? shuttingDown : overloaded);
      return answered;
    }
    try {
      timer.schedule(
          () -> abandon(taken, answered, overloaded), queueTime.toMillis(), TimeUnit.MILLISECONDS);
    } catch (RejectedExecutionException e) {
      // closed meanwhile: the pool is stopped too, so the work never runs
      abandon(taken, answered, shuttingDown);
    }
    return answered;
  }

  /** Answers without the work, unless a slot took it first. */
  private void abandon(
      AtomicBoolean taken, CompletableFuture<Answer> answered, Supplier<Answer> answer) {
    if (taken.compareAndSet(false, true)) {
      done();
      answered.complete(answer.get());
    }
  }

  private void done() {
    if (inFlight.decrementAndGet() == 0) {
      synchronized (idle) {
        idle.notifyAll();
      }
    }
  }

  /** From now on no work starts; what runs goes on. */
  void drain() {
    draining = true;
  }

  /** Whether {@link #drain()} was called. */
  boolean draining() {
    return draining;
  }

  /** Work running or waiting for a slot, not yet answered. */
  int inFlight() {
    return inFlight.get();
  }

  /**
   * Waits until no work is in flight, up to {@code timeout}.
   *
   * @return whether none is in flight
   */
  boolean awaitIdle(Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    synchronized (idle) {
      while (inFlight.get() > 0) {
        long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
        if (left <= 0) {
          break;
        }
        try {
          idle.wait(left);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          break;
        }
      }
    }
    return inFlight.get() == 0;
  }

  /** Stops the pool and the queue timer (after draining): work not yet run never runs. */
  @Override
  public void close() {
    draining = true;
    pool.shutdownNow();
    timer.shutdownNow();
  }
}
