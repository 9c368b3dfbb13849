package org.fencekit.spring;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.fencekit.webhook.WebhookCore;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.context.SmartLifecycle;

/**
 * The {@link WebhookCore} as a bean, drained on shutdown while the web server still serves: its
 * {@link #stop()} runs in lifecycle phase {@link #PHASE}, before the web server's graceful shutdown
 * ({@code SmartLifecycle.DEFAULT_PHASE - 1024}) and its stop ({@code - 2048}). New deliveries are
 * then answered 503 {@code shutting_down} with Retry-After, and those in flight finish and get
 * their whole answer, written to the client, for up to the stop timeout; only then does the web
 * server stop taking requests (an answer decided but not yet written when a stopping web server
 * closed its connection would be lost: Stripe would retry a delivery that was fulfilled). Bean
 * destruction, which comes after the web server has stopped, only stops the core's threads.
 */
public final class FencekitWebhook implements SmartLifecycle, DisposableBean {

  /** The lifecycle phase: stopped before the web server's graceful shutdown. */
  public static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 512;

  private final WebhookCore core;
  private final Duration stopTimeout;
  private final AtomicInteger unwritten = new AtomicInteger();
  private final Object allWritten = new Object();
  private volatile boolean running;

  /**
   * @param core the core the routes answer with
   * @param stopTimeout how long a stop waits for deliveries in flight
   */
  public FencekitWebhook(WebhookCore core, Duration stopTimeout) {
    this.core = Objects.requireNonNull(core, "core");
    this.stopTimeout = Objects.requireNonNull(stopTimeout, "stopTimeout");
  }

  /** The core. */
  public WebhookCore core() {
    return core;
  }

  /** Marks the webhook running (it answers from construction on). */
  @Override
  public void start() {
    running = true;
  }

  /**
   * Drains: new deliveries are answered 503 while those in flight finish, up to the stop timeout. A
   * drained core does not start again.
   */
  @Override
  public void stop() {
    long deadline = System.nanoTime() + stopTimeout.toNanos();
    core.drainAndAwait(stopTimeout);
    awaitWritten(deadline);
    running = false;
  }

  /**
   * Counts an answer from now until it is written (or its request ends otherwise): call the
   * returned action then, once or more.
   */
  Runnable writing() {
    unwritten.incrementAndGet();
    AtomicBoolean done = new AtomicBoolean();
    return () -> {
      if (done.compareAndSet(false, true) && unwritten.decrementAndGet() == 0) {
        synchronized (allWritten) {
          allWritten.notifyAll();
        }
      }
    };
  }

  /** Waits until every answer counted by {@link #writing()} is written, or the deadline. */
  private void awaitWritten(long deadline) {
    synchronized (allWritten) {
      while (unwritten.get() > 0) {
        long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
        if (left <= 0) {
          return;
        }
        try {
          allWritten.wait(left);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
      }
    }
  }

  @Override
  public boolean isRunning() {
    return running;
  }

  @Override
  public int getPhase() {
    return PHASE;
  }

  /** Stops the core's threads (after the drain, or at once if the context never started). */
  @Override
  public void destroy() {
    core.close();
  }
}
