package org.fencekit.store.sqlite;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One write lock per database file in this JVM, shared by every store open on it.
 *
 * <p>SQLite lets one connection write at a time and makes the others wait in its busy handler,
 * which polls with growing sleeps: several connections of one process writing through it alone
 * stall single calls for seconds and still fail with SQLITE_BUSY. So this process's writers queue
 * here, and only writers of other processes meet in the busy handler. The lock is not fair: a
 * writer that arrives as it is released takes it, rather than handing it to the longest waiter and
 * sleeping until that one has woken (waiters still wake in arrival order, each within the store's
 * {@code acquireTimeout}). With {@code synchronous=NORMAL} a write is short enough that the
 * hand-off was a third of its time at 4 and 16 threads (issue 36: 0.61 and 0.44 of the raw driver's
 * claims + completes per second with a fair lock, 0.81-0.89 and 0.78 without). Locks are keyed by
 * the file's real path (symbolic links resolved) and dropped when the last store on the file
 * closes.
 */
final class FileLocks {

  private static final Map<Path, Shared> LOCKS = new HashMap<>();

  private FileLocks() {}

  /** A lock and the number of open stores using it. */
  private static final class Shared {
    final ReentrantLock lock = new ReentrantLock();
    int users;
  }

  /**
   * The write lock of the file at {@code realPath}; pair every call with {@link #release}.
   *
   * @param realPath the file's {@link Path#toRealPath real path}
   */
  static ReentrantLock acquire(Path realPath) {
    synchronized (LOCKS) {
      Shared shared = LOCKS.computeIfAbsent(realPath, path -> new Shared());
      shared.users++;
      return shared.lock;
    }
  }

  /** Gives up one use of the file's lock, taken by {@link #acquire}. */
  static void release(Path realPath) {
    synchronized (LOCKS) {
      Shared shared = LOCKS.get(realPath);
      if (shared != null && --shared.users == 0) {
        LOCKS.remove(realPath);
      }
    }
  }

  /** How many files have a lock now (for tests). */
  static int size() {
    synchronized (LOCKS) {
      return LOCKS.size();
    }
  }
}
