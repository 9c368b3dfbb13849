package org.fencekit.faults;

/**
 * A fault a {@link FaultRun} injects once its load is under way: kill connections, restart or pause
 * the server, fill its disk. {@link #inject()} returns once the fault is over and the backend has
 * been put back as it was (restarted, resumed, the disk emptied), so the run can time how long the
 * store takes to recover by itself from that moment.
 */
@FunctionalInterface
public interface Fault {

  /**
   * Injects the fault, heals it, and says how many fault events it caused (connections killed,
   * restarts, pauses).
   *
   * @throws Exception if the fault could not be injected; the run then fails
   */
  int inject() throws Exception;
}
