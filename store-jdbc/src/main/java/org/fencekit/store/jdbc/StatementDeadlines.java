package org.fencekit.store.jdbc;

import java.sql.SQLException;
import java.sql.Statement;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * The query timeout of a store's single statements, kept by one daemon thread of the store's
 * instead of the driver's timer task per statement ({@link Statement#setQueryTimeout}). pgjdbc
 * schedules a task on a {@link java.util.Timer} for every statement with a timeout, which wakes the
 * timer's thread, then cancels it and purges the timer's queue: a fifth to a quarter of a claim +
 * complete at one thread (docs/where-the-time-goes.md).
 *
 * <p>A statement is watched from before it runs until it is closed ({@link Watch#close}); every
 * {@value #TICK_MILLIS} ms the thread cancels ({@link Statement#cancel}) each statement watched
 * past its deadline, as the driver's own timer would. It relies on the driver's cancel interrupting
 * a statement only while it executes, and on the executing thread waiting for a cancel in flight
 * before it returns (pgjdbc's statement cancel states), so that a statement that has finished is
 * never cancelled once its connection runs another.
 */
final class StatementDeadlines implements AutoCloseable {

  /** How often the thread looks for statements past their deadline. */
  static final long TICK_MILLIS = 100;

  private final long timeoutNanos;
  private final LongSupplier nanoTime;
  private final Set<Watch> watched = ConcurrentHashMap.newKeySet();
  private final ScheduledExecutorService thread;

  /**
   * @param backend the store's name, for the thread's name
   * @param timeoutSeconds how long a statement may run, at least 1
   */
  StatementDeadlines(String backend, int timeoutSeconds) {
    this(
        timeoutSeconds,
        System::nanoTime,
        Executors.newSingleThreadScheduledExecutor(
            task -> {
              Thread t = new Thread(task, "fencekit-" + backend + "-statement-deadlines");
              t.setDaemon(true);
              return t;
            }));
    thread.scheduleWithFixedDelay(
        this::cancelOverdue, TICK_MILLIS, TICK_MILLIS, TimeUnit.MILLISECONDS);
  }

  /** Deadlines on {@code nanoTime} with no thread: the caller ticks ({@link #cancelOverdue}). */
  StatementDeadlines(int timeoutSeconds, LongSupplier nanoTime) {
    this(timeoutSeconds, nanoTime, null);
  }

  private StatementDeadlines(
      int timeoutSeconds, LongSupplier nanoTime, ScheduledExecutorService thread) {
    this.timeoutNanos = TimeUnit.SECONDS.toNanos(timeoutSeconds);
    this.nanoTime = nanoTime;
    this.thread = thread;
  }

  /** Watches {@code statement} from now: its deadline is now + the timeout. */
  Watch watch(Statement statement) {
    Watch watch = new Watch(statement, nanoTime.getAsLong() + timeoutNanos);
    watched.add(watch);
    return watch;
  }

  /** Cancels each statement watched past its deadline, once; one tick of the thread. */
  void cancelOverdue() {
    long now = nanoTime.getAsLong();
    for (Watch watch : watched) {
      if (now - watch.deadline >= 0 && watched.remove(watch)) {
        try {
          watch.statement.cancel();
        } catch (SQLException | RuntimeException e) {
          // closed or finished meanwhile: nothing left to cancel
        }
      }
    }
  }

  /** Stops the thread; statements still running keep their socket timeout. */
  @Override
  public void close() {
    if (thread != null) {
      thread.shutdownNow();
    }
  }

  /** One statement watched, until closed. */
  final class Watch implements AutoCloseable {
    private final Statement statement;
    private final long deadline;

    private Watch(Statement statement, long deadline) {
      this.statement = statement;
      this.deadline = deadline;
    }

    /** Stops watching: the statement ran, or failed. */
    @Override
    public void close() {
      watched.remove(this);
    }
  }
}
