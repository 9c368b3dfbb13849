package org.fencekit.fulfilment;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Runs the handler's timed work: heartbeats and provider-call deadlines. The handler reads no time
 * of its own beyond its {@link java.time.Clock}: in production this is a {@link
 * ScheduledExecutorService}; in tests a scheduler the test drives together with its clock, so no
 * test waits in real time for a lease or a heartbeat.
 */
@FunctionalInterface
public interface Scheduler {

  /**
   * Runs {@code task} once, {@code delay} from now.
   *
   * @param name what the task is ("heartbeat", "provider deadline"), for logs and tests
   * @param delay how long from now; zero or more
   * @param task what to run; it must not throw
   * @return a handle that cancels the task if it has not started
   */
  Task schedule(String name, Duration delay, Runnable task);

  /** A scheduled task. */
  @FunctionalInterface
  interface Task {
    /** Cancels the task if it has not started; does nothing otherwise. */
    void cancel();
  }

  /** A scheduler over an executor the caller owns (and shuts down). */
  static Scheduler of(ScheduledExecutorService executor) {
    Objects.requireNonNull(executor, "executor");
    return (name, delay, task) -> {
      ScheduledFuture<?> future =
          executor.schedule(task, Math.max(0, delay.toNanos()), TimeUnit.NANOSECONDS);
      return () -> future.cancel(false);
    };
  }
}
