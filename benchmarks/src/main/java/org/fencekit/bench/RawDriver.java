package org.fencekit.bench;

/**
 * One backend's bare driver, doing what {@link ClaimCompleteBenchmark} asks of a store (claim a
 * fresh order, then complete it) with the same statements or scripts, and nothing around them: no
 * validation, no records built from the replies, no exceptions translated.
 */
interface RawDriver extends AutoCloseable {

  /** A session for one benchmark thread (its own connection, where the driver has them). */
  Session session();

  @Override
  void close();

  /** One thread's connection. */
  interface Session extends AutoCloseable {

    /**
     * Claims the fresh order {@code sessionId} at {@code nowMillis} and completes it.
     *
     * @throws IllegalStateException if the claim or the complete was refused
     */
    void claimComplete(String sessionId, long nowMillis);

    @Override
    void close();
  }
}
