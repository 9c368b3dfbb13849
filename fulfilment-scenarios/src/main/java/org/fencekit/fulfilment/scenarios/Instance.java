package org.fencekit.fulfilment.scenarios;

import org.fencekit.fulfilment.CheckoutEvent;
import org.fencekit.fulfilment.OrphanReport;

/**
 * One handler instance of a run: a process of the user's service, with its own handler, timers and
 * connection to the shared store. The kit can pause it ({@link #freeze()}), cut it off from the
 * store, or crash it.
 */
public final class Instance {

  private final ScenarioRun run;
  private final String name;
  private final ManualScheduler scheduler;
  private final InstanceStore store;
  private HandlerUnderTest handler;

  Instance(ScenarioRun run, String name) {
    this.run = run;
    this.name = name;
    this.scheduler =
        new ManualScheduler(run.clock(), task -> run.timeline().add(name, "timer: " + task));
    this.store = new InstanceStore(run, name);
  }

  void attach(HandlerUnderTest handler) {
    this.handler = handler;
  }

  /** Its name ("A", "B", ...). */
  public String name() {
    return name;
  }

  /** Delivers {@code event} on a new thread and returns at once. */
  public Delivery deliver(CheckoutEvent event) {
    return run.deliver(this, event, false);
  }

  /** Delivers {@code event} and waits (bounded by the run's patience) for the answer. */
  public Delivery deliverAndAwait(CheckoutEvent event) {
    return run.deliver(this, event, true);
  }

  /** Pauses the instance's timers (a stop-the-world pause, a suspended VM). */
  public void freeze() {
    run.replay().line(var() + ".freeze();");
    run.quiesce();
    scheduler.freeze();
    run.timeline().add(name, "is paused: its timers stop");
  }

  /** Resumes the instance's timers; the overdue ones run now, late, in order. */
  public void thaw() {
    run.replay().line(var() + ".thaw();");
    scheduler.thaw();
    run.timeline().add(name, "resumes: overdue timers run");
    scheduler.runDue();
    run.quiesce();
  }

  /**
   * Resumes the instance's timers but runs only the soonest overdue one, so a check can see what
   * that timer alone did; the others run at the next {@link ScenarioRun#advance} or {@link
   * #thaw()}.
   */
  public void thawOneTimer() {
    run.replay().line(var() + ".thawOneTimer();");
    scheduler.thaw();
    run.timeline().add(name, "resumes: its most overdue timer runs");
    scheduler.runOneDue();
    run.quiesce();
  }

  /**
   * Every store call of this instance fails from now on (a network partition), until {@link
   * #reconnect()}.
   */
  public void cutOffFromStore() {
    run.replay().line(var() + ".cutOffFromStore();");
    store.down();
    run.timeline().add(name, "is cut off from the store");
  }

  /**
   * From this instance's next {@code operation} ("claim", "complete", "fail", "extend") on, every
   * store call fails with an unknown outcome until {@link #reconnect()}; if {@code firstLands},
   * that first call lands in the store and only its answer is lost.
   */
  public void storeFailsFrom(String operation, boolean firstLands) {
    run.replay()
        .line(var() + ".storeFailsFrom(" + Replay.quote(operation) + ", " + firstLands + ");");
    store.downFrom(operation, firstLands);
    run.timeline()
        .add(
            name,
            "will lose the store at its next "
                + operation
                + (firstLands ? " (which lands, its answer lost)" : " (which never lands)"));
  }

  /** The store answers this instance again. */
  public void reconnect() {
    run.replay().line(var() + ".reconnect();");
    store.up();
    run.timeline().add(name, "reaches the store again");
  }

  void crash(String why) {
    scheduler.kill();
    store.crash();
    run.timeline().add(name, "CRASHES: " + why);
  }

  void reported(OrphanReport report) {
    run.timeline().add(name, "reports orphan: " + report.describe());
    run.reported(report);
  }

  ScenarioRun run() {
    return run;
  }

  HandlerUnderTest handler() {
    return handler;
  }

  ManualScheduler scheduler() {
    return scheduler;
  }

  InstanceStore store() {
    return store;
  }

  /** Its variable in the replay. */
  String var() {
    return name.toLowerCase(java.util.Locale.ROOT);
  }

  @Override
  public String toString() {
    return var();
  }
}
