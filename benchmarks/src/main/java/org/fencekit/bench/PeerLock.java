package org.fencekit.bench;

/**
 * One lock library at work ({@link Peer}): each benchmark thread takes its own lock and releases
 * it, over and over, the way a job or a handler guarded by that library does. It fences nothing:
 * the lock's holder writes without presenting a token the store checks.
 */
interface PeerLock extends AutoCloseable {

  /** The lock of benchmark thread {@code thread} (0, 1, ...). */
  Session session(int thread);

  /**
   * The one lock every thread fights over ({@link HotLock}): the same name for every thread of this
   * library.
   */
  Attempt hot();

  @Override
  void close();

  /** One thread's lock. */
  interface Session {

    /**
     * Acquires the lock and releases it.
     *
     * @throws IllegalStateException if the lock was not acquired (no other thread holds it)
     */
    void lockUnlock();
  }

  /** One thread's attempts on the lock all threads share. */
  interface Attempt {

    /**
     * Tries the lock once, without waiting; if it was acquired, releases it at once.
     *
     * @return whether it was acquired (false: another thread held it)
     */
    boolean tryLockUnlock();
  }
}
