package org.fencekit.store.sqlite;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One fair write lock per database file in this JVM, shared by every store open on it.
 *
 * <p>SQLite lets one connection write at a time and makes the others wait in its busy handler,
 * which polls with growing sleeps: several connections of one process writing through it alone
 * stall single calls for seconds and still fail with SQLITE_BUSY. So this process's writers queue
 * here, first come first served, and only writers of other processes meet in the busy handler.
 * Locks are keyed by the file's real path (symbolic links resolved) and dropped when the last store
 * on the file closes.
 */
final class FileLocks {

  private static final Map<Path, Shared> LOCKS = new HashMap<>();

  private FileLocks() {}

  /** A lock and the number of open stores using it. */
  private static final class Shared {
    final ReentrantLock lock = new ReentrantLock(true);
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
