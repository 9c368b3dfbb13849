package org.fencekit.server;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Holds the first purchase of one session inside the provider until the test releases it, so that
 * two calls on that session overlap for certain: the second is made while the first holds the
 * order, and what it answers shows whether it respected the claim. (Calls released at once overlap
 * only as the scheduler pleases: on a loaded machine they may never.) Any later purchase of the
 * session passes at once, so a second purchase shows as one instead of blocking the test. A
 * provider calls {@link #enter} before it buys.
 */
public final class HeldPurchase {

  private static final long LIMIT_SECONDS = 60;

  private final String sessionId;
  private final CountDownLatch entered = new CountDownLatch(1);
  private final CountDownLatch released = new CountDownLatch(1);
  private final AtomicBoolean first = new AtomicBoolean(true);

  /** Holds the first purchase of {@code sessionId}. */
  public HeldPurchase(String sessionId) {
    this.sessionId = sessionId;
  }

  /**
   * Called by the provider before it buys for {@code session}: the first purchase of the held
   * session waits here until {@link #release()} (at most a minute, then fails).
   */
  public void enter(String session) throws InterruptedException {
    if (!sessionId.equals(session) || !first.compareAndSet(true, false)) {
      return;
    }
    entered.countDown();
    if (!released.await(LIMIT_SECONDS, TimeUnit.SECONDS)) {
      throw new IllegalStateException("the held purchase of " + session + " was never released");
    }
  }

  /** Waits until the held purchase has begun (at most a minute, then fails). */
  public void awaitEntered() throws InterruptedException {
    if (!entered.await(LIMIT_SECONDS, TimeUnit.SECONDS)) {
      throw new AssertionError("no purchase of " + sessionId + " reached the provider");
    }
  }

  /** Lets the held purchase go on. */
  public void release() {
    released.countDown();
  }
}
