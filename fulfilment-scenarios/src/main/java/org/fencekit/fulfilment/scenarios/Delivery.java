package org.fencekit.fulfilment.scenarios;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.fencekit.fulfilment.CheckoutEvent;

/** One webhook delivery to one handler instance, running on a thread of its own. */
public final class Delivery {

  private final String name;
  private final Instance instance;
  private final CheckoutEvent event;
  private final CountDownLatch done = new CountDownLatch(1);
  private volatile Thread thread;
  private volatile boolean begun;
  private volatile Integer status;
  private volatile Throwable thrown;
  private volatile boolean settledOnce;

  Delivery(String name, Instance instance, CheckoutEvent event) {
    this.name = name;
    this.instance = instance;
    this.event = event;
  }

  /** The instance it was delivered to. */
  public Instance instance() {
    return instance;
  }

  /** The event delivered. */
  public CheckoutEvent event() {
    return event;
  }

  /** Whether the handler has answered. */
  public boolean answered() {
    return done.getCount() == 0;
  }

  /** The status answered, or {@code null} while the handler is still working. */
  public Integer status() {
    return status;
  }

  /**
   * Whether, when the handler answered, its order was settled exactly once (provisioned with its
   * one purchase): then a 2xx is right even where the scenario expected a retry.
   */
  public boolean settledOnceWhenAnswered() {
    return settledOnce;
  }

  /** What the handler threw, if it threw (answered as 500). */
  public Throwable thrown() {
    return thrown;
  }

  /**
   * The status, waiting for it in real time up to the run's patience.
   *
   * @throws ScenarioFailure if no answer came
   */
  public int awaitAnswer() {
    ScenarioRun run = instance.run();
    run.replay().line(name + ".awaitAnswer();");
    try {
      if (!done.await(run.patience().toNanos(), TimeUnit.NANOSECONDS)) {
        throw run.failure(
            String.format(
                "delivery %s got no answer within %s of real time while the scenario waited for it",
                this, Timeline.format(run.patience())));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw run.failure("interrupted while waiting for " + this);
    }
    return status;
  }

  Thread thread() {
    return thread;
  }

  /** Whether its thread has started running (a thread not yet running is not idle). */
  boolean begun() {
    return begun;
  }

  void start(Runnable beforeHandling) {
    Thread worker =
        new Thread(
            () -> {
              begun = true;
              beforeHandling.run();
              deliver();
            },
            "scenario-delivery-" + instance.name() + "-" + name);
    worker.setDaemon(true);
    thread = worker;
    worker.start();
  }

  private void deliver() {
    ScenarioRun run = instance.run();
    run.timeline().add(instance.name(), "receives " + describe());
    int answer;
    try {
      answer = instance.handler().handle(event);
    } catch (ScenarioRun.RunEnded e) {
      return; // the instance died or the run ended: no answer
    } catch (Throwable e) {
      thrown = e;
      answer = 500;
    }
    settledOnce = event.snapshot() != null && run.settledOnce(event.snapshot());
    status = answer;
    run.timeline()
        .add(
            instance.name(),
            String.format(
                "answers %s to %s%s",
                answer, event.eventId(), thrown == null ? "" : " (threw " + thrown + ")"));
    done.countDown();
  }

  private String describe() {
    return event.eventId()
        + " ("
        + event.typeName()
        + (event.paymentStatus() == null ? "" : ", " + event.paymentStatus().stripeName())
        + (event.snapshot() == null ? "" : ", " + instance.run().report().label(event.sessionId()))
        + (event.snapshot() != null && instance.run().isOtherCart(event.snapshot())
            ? ", another cart: " + FakeProvider.goods(event.snapshot())
            : "")
        + ")";
  }

  /** Its name in the replay, e.g. {@code d2}. */
  @Override
  public String toString() {
    return name;
  }
}
