package org.fencekit.store.jdbc;

import java.sql.SQLException;
import java.sql.SQLTimeoutException;
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
 * past its deadline, as the driver's own timer would. A statement is never cancelled once its
 * connection runs another: closing it waits for its cancel in flight to return, and the driver's
 * cancel must interrupt a statement only while it executes. pgjdbc's does, and waits itself; a
 * Connector/J cancel is a {@code KILL QUERY} on another connection, which returns once the server
 * has marked the statement's session, and which the server forgets if the session is idle by then
 * (its next statement runs; store-mysql's {@code MysqlDeadlinesTest} checks it on its server).
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
      if (now - watch.deadline >= 0) {
        watch.cancel();
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
    private boolean cancelled;

    private Watch(Statement statement, long deadline) {
      this.statement = statement;
      this.deadline = deadline;
    }

    /** Cancels the statement unless it was closed, holding the watch until the cancel returns. */
    private synchronized void cancel() {
      if (watched.remove(this)) {
        cancelled = true;
        try {
          statement.cancel();
        } catch (SQLException | RuntimeException e) {
          // closed or finished meanwhile: nothing left to cancel
        }
      }
    }

    /**
     * What the statement's failure {@code e} means: a {@link SQLTimeoutException} with its state,
     * code and cause if this thread cancelled the statement past its deadline (a driver may answer
     * its own cancel as any exception, Connector/J's with no SQLState), else {@code e}. Waits for a
     * cancel in flight.
     */
    synchronized SQLException timedOut(SQLException e) {
      if (!cancelled || e instanceof SQLTimeoutException) {
        return e;
      }
      return new SQLTimeoutException(
          "cancelled past the query timeout of "
              + TimeUnit.NANOSECONDS.toSeconds(timeoutNanos)
              + " s by the store's deadline thread: "
              + e.getMessage(),
          e.getSQLState(),
          e.getErrorCode(),
          e);
    }

    /**
     * Stops watching: the statement ran, or failed. Waits for a cancel in flight to return, so the
     * connection runs nothing else before it has landed.
     */
    @Override
    public synchronized void close() {
      watched.remove(this);
    }
  }
}
