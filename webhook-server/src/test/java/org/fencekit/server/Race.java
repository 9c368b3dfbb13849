package org.fencekit.server;

import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;

/**
 * Two calls released at once on two threads, the one not meant to go first held back 2 ms so that
 * each order is tried (the success page's landing and the webhook racing on one session: here and
 * in the Spring Boot starter's tests).
 */
public final class Race {

  /** What the two calls answered. */
  public record Answers<A, B>(A a, B b) {}

  private Race() {}

  /**
   * Runs {@code a} and {@code b} on {@code pool} (two threads at least), {@code a} first when
   * {@code aFirst}, and waits for both.
   */
  public static <A, B> Answers<A, B> run(
      ExecutorService pool, boolean aFirst, Callable<A> a, Callable<B> b) throws Exception {
    CountDownLatch go = new CountDownLatch(1);
    Future<A> first = pool.submit(() -> after(go, !aFirst, a));
    Future<B> second = pool.submit(() -> after(go, aFirst, b));
    go.countDown();
    return new Answers<>(first.get(), second.get());
  }

  private static <T> T after(CountDownLatch go, boolean holdBack, Callable<T> call)
      throws Exception {
    go.await();
    if (holdBack) {
      Thread.sleep(2); // lets the other call start first
    }
    return call.call();
  }
}
