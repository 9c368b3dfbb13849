package org.fencekit.tck;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Runs tasks on real threads that start together, so they hit the store at the same moment, and
 * waits for all of them with a bound, so a store that deadlocks fails the test instead of hanging
 * the build. {@link #rounds} runs many races in a row on the same threads, for a race whose window
 * is too narrow for one try to meet it.
 */
final class Race {

  /** How long a whole race may take before the test fails. */
  static final long TIMEOUT_SECONDS = 60;

  private static final AtomicInteger THREADS = new AtomicInteger();

  private Race() {}

  /** One racer: its index among {@code threads}. */
  @FunctionalInterface
  interface Task<T> {
    /** Runs racer {@code index}. */
    T run(int index) throws Exception;
  }

  /** One racer's part in one round of {@link #rounds}. */
  @FunctionalInterface
  interface RoundTask<T> {
    /** Runs racer {@code index} in round {@code round}. */
    T run(int index, int round) throws Exception;
  }

  /**
   * Runs {@code rounds} races one after another on {@code threads} threads and returns their
   * results by racer, then round. A round starts when every racer has finished the one before (a
   * barrier, where they wait parked, so a slow backend costs no CPU); then each racer yields until
   * all have woken, because a barrier wakes its waiters one after another, tens of microseconds
   * apart, long enough for the first to finish a narrow check-then-act alone. So every round the
   * racers call at once, whichever cores they woke on. If a racer throws, the others stop and the
   * exception is reported as by {@link #run}.
   */
  static <T> List<List<T>> rounds(int threads, int rounds, RoundTask<T> task) {
    CyclicBarrier between = new CyclicBarrier(threads);
    AtomicInteger woken = new AtomicInteger();
    AtomicBoolean abandoned = new AtomicBoolean();
    return run(
        threads,
        index -> {
          List<T> results = new ArrayList<>(rounds);
          try {
            for (int round = 0; round < rounds; round++) {
              between.await(TIMEOUT_SECONDS, TimeUnit.SECONDS);
              int all = threads * (round + 1);
              woken.incrementAndGet();
              while (woken.get() < all) {
                if (abandoned.get()) {
                  return results;
                }
                Thread.yield();
              }
              results.add(task.run(index, round));
            }
          } catch (BrokenBarrierException another) {
            return results; // another racer threw: run reports its exception
          } catch (Exception | Error e) {
            abandoned.set(true);
            between.reset();
            throw e;
          }
          return results;
        });
  }

  /**
   * Runs {@code task} on {@code threads} threads released at once by a barrier and returns their
   * results by index.
   *
   * @throws AssertionError if a racer throws (with its exception as the cause) or the race takes
   *     longer than {@value #TIMEOUT_SECONDS} s
   */
  static <T> List<T> run(int threads, Task<T> task) {
    ExecutorService pool =
        Executors.newFixedThreadPool(
            threads,
            r -> {
              Thread thread = new Thread(r, "fencekit-tck-racer-" + THREADS.incrementAndGet());
              thread.setDaemon(true);
              return thread;
            });
    try {
      CyclicBarrier start = new CyclicBarrier(threads);
      List<Future<T>> futures = new ArrayList<>(threads);
      for (int i = 0; i < threads; i++) {
        int index = i;
        futures.add(
            pool.submit(
                () -> {
                  start.await(TIMEOUT_SECONDS, TimeUnit.SECONDS);
                  return task.run(index);
                }));
      }
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_SECONDS);
      List<T> results = new ArrayList<>(threads);
      for (int i = 0; i < threads; i++) {
        try {
          results.add(
              futures.get(i).get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS));
        } catch (ExecutionException e) {
          Throwable cause = e.getCause();
          if (cause instanceof AssertionError) {
            throw (AssertionError) cause;
          }
          throw new AssertionError("racer " + i + " of " + threads + " threw " + cause, cause);
        } catch (TimeoutException e) {
          throw new AssertionError(
              "the race of "
                  + threads
                  + " threads did not finish within "
                  + TIMEOUT_SECONDS
                  + " s: does the store deadlock, or wait on a lock it never gets?",
              e);
        }
      }
      return results;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted while waiting for the race", e);
    } finally {
      pool.shutdownNow();
    }
  }
}
