package org.fencekit.fulfilment.scenarios;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The threads of a run's handlers (one per delivery, one per provider call) and the wait for them
 * to go idle, bounded in real time by the run's patience. This is the only real-time waiting the
 * kit does: for other threads to make progress, never for a lease or a heartbeat.
 */
final class RunThreads {

  private final Duration patience;
  private final Timeline timeline;
  private final FakeProvider provider;
  private final RunReport report;
  private final List<Delivery> deliveries = new ArrayList<>();
  private final List<Thread> providerThreads = new ArrayList<>();

  RunThreads(Duration patience, Timeline timeline, FakeProvider provider, RunReport report) {
    this.patience = patience;
    this.timeline = timeline;
    this.provider = provider;
    this.report = report;
  }

  /** Counts {@code delivery} among the threads to wait for. */
  synchronized Delivery register(Delivery delivery) {
    deliveries.add(delivery);
    return delivery;
  }

  /** The deliveries made so far, in the order they were made. */
  synchronized List<Delivery> deliveries() {
    return List.copyOf(deliveries);
  }

  /** Where instance {@code instance} runs its provider calls: a thread each, counted here. */
  Executor providerExecutor(String instance) {
    AtomicInteger count = new AtomicInteger();
    return task -> {
      Thread thread =
          new Thread(
              () -> {
                try {
                  task.run();
                } catch (ScenarioRun.RunEnded e) {
                  // the instance crashed or the run ended under this call
                }
              },
              "scenario-provider-" + instance + "-" + count.incrementAndGet());
      thread.setDaemon(true);
      synchronized (this) {
        providerThreads.add(thread);
      }
      thread.start();
    };
  }

  /** Waits for {@code delivery}'s answer, then for the handlers to go idle. */
  void awaitAnswer(Delivery delivery) {
    long deadline = System.nanoTime() + patience.toNanos();
    while (!delivery.answered()) {
      if (System.nanoTime() > deadline) {
        throw report.failure(noAnswer(delivery));
      }
      pause();
    }
    quiesce();
  }

  /** Why a delivery that has not answered is a failure once the patience is spent. */
  String noAnswer(Delivery delivery) {
    return String.format(
        "delivery %s to %s got no answer within %s of real time (does the handler wait for a"
            + " provider call to be released, or for the clock to move?)",
        delivery, delivery.instance().name(), Timeline.format(patience));
  }

  /**
   * Waits until every handler thread is idle: each delivery has answered or is parked, each
   * provider call has returned or is parked, and nothing new happened for a few milliseconds.
   */
  void quiesce() {
    long deadline = System.nanoTime() + patience.toNanos();
    int quietRounds = 0;
    int lastSize = -1;
    while (quietRounds < 10) {
      if (System.nanoTime() > deadline) {
        throw report.failure(
            "the handler did not go idle within "
                + Timeline.format(patience)
                + " of real time; busy threads: "
                + busyThreads());
      }
      int size = timeline.size();
      if (busyThreads().isEmpty() && size == lastSize) {
        quietRounds++;
      } else {
        quietRounds = 0;
      }
      lastSize = size;
      pause();
    }
  }

  private synchronized List<String> busyThreads() {
    List<String> busy = new ArrayList<>();
    for (Delivery delivery : deliveries) {
      Thread thread = delivery.thread();
      if (thread != null && !delivery.answered() && (!delivery.begun() || !parked(thread))) {
        busy.add(thread.getName() + " " + thread.getState());
      }
    }
    for (FakeProvider.ProviderCall call : provider.calls()) {
      if (call.waking()) {
        busy.add(call + " released, not yet resumed");
      }
    }
    for (Thread thread : providerThreads) {
      if (!parked(thread)) {
        busy.add(thread.getName() + " " + thread.getState());
      }
    }
    return busy;
  }

  private static boolean parked(Thread thread) {
    Thread.State state = thread.getState();
    return state == Thread.State.TERMINATED
        || state == Thread.State.WAITING
        || state == Thread.State.TIMED_WAITING;
  }

  /** Interrupts every delivery still waiting for its handler, at the end of the run. */
  synchronized void interruptUnanswered() {
    for (Delivery delivery : deliveries) {
      Thread thread = delivery.thread();
      if (thread != null && !delivery.answered()) {
        thread.interrupt();
      }
    }
  }

  /** A short pause while other threads make progress (not a wait for a lease). */
  static void pause() {
    try {
      Thread.sleep(2);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for the handler", e);
    }
  }
}
