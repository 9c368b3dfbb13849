package org.fencekit.fulfilment.scenarios;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.PriorityQueue;
import java.util.function.Consumer;
import org.fencekit.fulfilment.Scheduler;

/**
 * A {@link Scheduler} whose tasks run only when the test says so: {@link #runDue()} runs, on the
 * calling thread, every task whose time on the clock has come, in the order of their times (ties in
 * the order they were scheduled). A frozen scheduler runs nothing, like the timers of a paused
 * process; thawing it lets its overdue tasks run at the next {@link #runDue()}.
 *
 * <p>Safe for many threads: tasks may be scheduled and cancelled from any thread.
 */
public final class ManualScheduler implements Scheduler {

  private final Clock clock;
  private final Consumer<String> log;
  private final PriorityQueue<Entry> queue = new PriorityQueue<>();
  private long sequence;
  private boolean frozen;
  private boolean dead;

  /**
   * @param clock the clock task times are read from
   * @param log told the name of each task as it runs (for the timeline)
   */
  public ManualScheduler(Clock clock, Consumer<String> log) {
    this.clock = Objects.requireNonNull(clock, "clock");
    this.log = Objects.requireNonNull(log, "log");
  }

  @Override
  public synchronized Task schedule(String name, Duration delay, Runnable task) {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(task, "task");
    if (delay.isNegative()) {
      throw new IllegalArgumentException("delay must not be negative, got " + delay);
    }
    Entry entry = new Entry(clock.instant().plus(delay), sequence++, name, task);
    queue.add(entry);
    return () -> cancel(entry);
  }

  private synchronized void cancel(Entry entry) {
    queue.remove(entry);
  }

  /** Stops running tasks until {@link #thaw()}: the process is paused. */
  public synchronized void freeze() {
    frozen = true;
  }

  /** Lets tasks run again; overdue ones run at the next {@link #runDue()}. */
  public synchronized void thaw() {
    frozen = false;
  }

  /** Never runs a task again: the process is dead. */
  public synchronized void kill() {
    dead = true;
    queue.clear();
  }

  /** When the next task is due, or {@code null} if none is scheduled or the scheduler is frozen. */
  public synchronized Instant nextDue() {
    if (frozen || dead || queue.isEmpty()) {
      return null;
    }
    return queue.peek().due;
  }

  /**
   * Runs every task due by the clock's reading, including tasks those tasks schedule for no later
   * than now; returns how many ran.
   */
  public int runDue() {
    int ran = 0;
    while (runOneDue()) {
      if (++ran > 100_000) {
        throw new IllegalStateException(
            "more than 100,000 tasks ran at one instant: a task keeps scheduling itself with no"
                + " delay");
      }
    }
    return ran;
  }

  /** Runs the soonest task if it is due by the clock's reading; returns whether one ran. */
  public boolean runOneDue() {
    Entry next;
    synchronized (this) {
      if (frozen || dead || queue.isEmpty() || queue.peek().due.isAfter(clock.instant())) {
        return false;
      }
      next = queue.poll();
    }
    log.accept(next.name);
    next.task.run();
    return true;
  }

  private record Entry(Instant due, long sequence, String name, Runnable task)
      implements Comparable<Entry> {
    @Override
    public int compareTo(Entry other) {
      int byDue = due.compareTo(other.due);
      return byDue != 0 ? byDue : Long.compare(sequence, other.sequence);
    }
  }
}
