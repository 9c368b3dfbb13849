package org.fencekit.tck;

import org.fencekit.store.OrderStore;

/**
 * The technology compatibility kit: the store contract as a JUnit 5 suite every {@link OrderStore}
 * must pass. The contract ships in this jar ({@code org/fencekit/tck/contract.md}), and so does the
 * listing of the rules ({@link Rules}, {@code org/fencekit/tck/rules.txt}): each rule's id, what it
 * holds a store to, and what to check when it fails. A failure message starts with what was
 * expected and found (the order, the token presented, the current token, the clock and the fields
 * that differ) and ends with the rule's line of the listing.
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
 * number, so stores over a shared database never see another test's orders: {@code newStore} need
 * not empty the database. Tests that need two instances over the same data are skipped (not failed)
 * unless {@link #newPeerStore} is overridden.
 *
 * <p>The rules are test methods of a chain of rule groups, one file each, which this class ends:
 * {@link BasicRules} (run first), {@link IncidentRules}, {@link ClaimRules}, {@link SettleRules},
 * {@link ReplayAndOrphanRules}, {@link InputRules}, {@link ConcurrencyRules}, {@link
 * LinearizabilityRules}, {@link AdminRules} (for a store that implements {@link
 * org.fencekit.store.OrderStoreAdmin}, skipped otherwise). A rule's method name is its stable id,
 * {@code group_rule}; its display name states the rule. Give each configuration of one backend its
 * own top-level test class (subclasses of one abstract class that extends this one): Surefire's
 * summary merges the tests of one top-level class by method name, so {@code @Nested} configurations
 * would be counted once when one of them skips or fails.
 *
 * <p>The concurrency rules use real threads released together; their sizes are protected methods a
 * subclass may shrink or grow. The randomized rules print their seed on failure; run again with
 * {@code -Dfencekit.tck.seed=<seed>} to make the same choices (the interleaving of threads is the
 * scheduler's and cannot be replayed).
 */
public abstract class OrderStoreTck extends AdminRules {

  /** For subclasses. */
  protected OrderStoreTck() {}
}
