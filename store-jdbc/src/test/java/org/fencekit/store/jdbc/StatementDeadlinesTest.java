package org.fencekit.store.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Proxy;
import java.sql.Statement;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The store's statement deadlines on a clock the test moves and ticks it drives: a statement is
 * cancelled once its deadline has passed, once, and never after it was closed; a cancel that fails
 * keeps neither the others nor later ticks from theirs; closing a statement waits for its cancel in
 * flight, so its connection runs nothing else until the cancel has landed.
 */
class StatementDeadlinesTest {

  private final AtomicLong now = new AtomicLong(1_000_000_000L);
  private final StatementDeadlines deadlines = new StatementDeadlines(2, now::get);

  /** A statement that counts its cancels, and fails them if {@code failing}. */
  private static Statement statement(AtomicInteger cancels, boolean failing) {
    return (Statement)
        Proxy.newProxyInstance(
            StatementDeadlinesTest.class.getClassLoader(),
            new Class<?>[] {Statement.class},
            (proxy, method, args) -> {
              if (!method.getName().equals("cancel")) {
                throw new UnsupportedOperationException(method.getName());
              }
              cancels.incrementAndGet();
              if (failing) {
                // what a driver may throw from a statement its connection lost
                throw new IllegalStateException("this connection is closed");
              }
              return null;
            });
  }

  private void advanceMillis(long millis) {
    now.addAndGet(TimeUnit.MILLISECONDS.toNanos(millis));
  }

  @Test
  @DisplayName("a statement running past its deadline is cancelled, once; one within it is not")
  void overdueCancelledOnce() {
    AtomicInteger cancels = new AtomicInteger();
    deadlines.watch(statement(cancels, false));
    advanceMillis(1_999);
    deadlines.cancelOverdue();
    assertEquals(0, cancels.get(), "1.999 s into a 2 s timeout");
    advanceMillis(1);
    deadlines.cancelOverdue();
    assertEquals(1, cancels.get(), "at its deadline");
    advanceMillis(5_000);
    deadlines.cancelOverdue();
    assertEquals(1, cancels.get(), "cancelled once, not at every tick after");
  }

  @Test
  @DisplayName("a statement closed before its deadline is never cancelled")
  void closedNeverCancelled() {
    AtomicInteger cancels = new AtomicInteger();
    deadlines.watch(statement(cancels, false)).close();
    advanceMillis(10_000);
    deadlines.cancelOverdue();
    assertEquals(0, cancels.get());
  }

  @Test
  @DisplayName(
      "a cancel that fails keeps neither another overdue statement nor a later tick from theirs")
  void failedCancelStopsNothing() {
    AtomicInteger failed = new AtomicInteger();
    AtomicInteger first = new AtomicInteger();
    AtomicInteger later = new AtomicInteger();
    deadlines.watch(statement(failed, true));
    deadlines.watch(statement(first, false));
    advanceMillis(2_000);
    deadlines.watch(statement(later, false));
    deadlines.cancelOverdue();
    assertEquals(1, failed.get());
    assertEquals(1, first.get());
    assertEquals(0, later.get(), "watched 0 s ago");
    advanceMillis(2_000);
    deadlines.cancelOverdue();
    assertEquals(1, later.get());
    assertEquals(1, failed.get(), "a failed cancel is not tried again");
  }

  @Test
  @DisplayName(
      "closing a statement whose cancel is in flight waits for the cancel to return (a MySQL"
          + " cancel is a KILL QUERY sent on another connection: landing after the connection"
          + " moved on, it would interrupt the next statement)")
  void closeWaitsForCancelInFlight()
      throws InterruptedException, ExecutionException, TimeoutException {
    CountDownLatch cancelling = new CountDownLatch(1);
    CountDownLatch landed = new CountDownLatch(1);
    Statement slowCancel =
        (Statement)
            Proxy.newProxyInstance(
                StatementDeadlinesTest.class.getClassLoader(),
                new Class<?>[] {Statement.class},
                (proxy, method, args) -> {
                  cancelling.countDown();
                  landed.await();
                  return null;
                });
    StatementDeadlines.Watch watch = deadlines.watch(slowCancel);
    advanceMillis(2_000);
    CompletableFuture<Void> tick = CompletableFuture.runAsync(deadlines::cancelOverdue);
    assertTrue(cancelling.await(30, TimeUnit.SECONDS), "the tick never cancelled");
    CompletableFuture<Void> closing = CompletableFuture.runAsync(watch::close);
    // a close that does not wait returns at once; give it the time it would need, then look
    assertThrows(TimeoutException.class, () -> closing.get(200, TimeUnit.MILLISECONDS));
    assertFalse(closing.isDone(), "closed while the cancel was in flight");
    landed.countDown();
    closing.get(30, TimeUnit.SECONDS);
    tick.get(30, TimeUnit.SECONDS);
  }
}
