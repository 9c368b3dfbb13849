package org.fencekit.tck;

import org.fencekit.store.OrderStore;

/**
 * The technology compatibility kit: the behaviour of the store contract ({@code CONTRACT.md}) as a
 * JUnit 5 suite every {@link OrderStore} must pass.
 *
 * <p>Use it by adding this module with test scope and writing one class:
 *
 * <pre>{@code
 * class MyOrderStoreTckTest extends OrderStoreTck {
 *   @Override
 *   protected OrderStore newStore(TestClock clock) {
 *     return new MyOrderStore(dataSource, clock);
 *   }
 *
 *   @Override   // optional: a second, independent instance over the same data
 *   protected OrderStore newPeerStore(TestClock clock) {
 *     return new MyOrderStore(anotherDataSource, clock);
 *   }
 * }
 * }</pre>
 *
 * <p>Each test gets a fresh {@link TestClock} and a fresh store from {@link #newStore}, made on the
 * test's first use of it (after the subclass's own {@code @BeforeEach}); every store the suite
 * obtained is closed after the test. Session ids carry a random per-run prefix and a per-test
 * number, so stores over a shared database never see another test's orders, from this run or an
 * earlier one: {@code newStore} need not empty the database.
 *
 * <p>The rules are plain test methods of this class (not {@code @Nested} classes: Maven Surefire
 * filters out nested classes inherited from a base class, so they would silently not run). Give
 * each configuration of one backend its own top-level test class (subclasses of one abstract class
 * that extends this one): Surefire's summary merges the tests of one top-level class by method
 * name, so {@code @Nested} configurations would be counted once when one of them skips or fails.
 * Each test's display name states its rule; each rule's javadoc ends with what to check when it
 * fails; every assertion message names the order, the token presented, the current token and the
 * status found. Tests that need two instances over the same data are skipped (not failed) unless
 * {@link #newPeerStore} is overridden.
 *
 * <p>The concurrency tests use real threads; their sizes are protected methods a subclass may
 * shrink or grow. The randomized tests print their seed on failure; run again with {@code
 * -Dfencekit.tck.seed=<seed>} to make the same choices (the interleaving of threads is the
 * scheduler's and cannot be replayed).
 */
public abstract class OrderStoreTck extends LinearizabilityRules {

  /** For subclasses. */
  protected OrderStoreTck() {}
}
